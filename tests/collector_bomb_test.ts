/**
 * The `collector` role through `main.ts` against peers responding with bodies without
 * end: the weather API and the time-series store (v1, and v2 refusing with an
 * endless JSON body) responding with 1 GiB bombs (br and gzip) and an endless
 * plain body. Each call fails with an error naming the bound, the points are kept
 * for retry, and the resident size stays under MAX_RESIDENT_MB.
 */
import assert from "node:assert/strict";
import { startStore } from "../services/collector/_test_store.ts";
import { startWeatherStandIn } from "../services/collector/_test_weather.ts";
import { startMain } from "./_test_helpers.ts";
import {
  HOSTILE_BODIES,
  peakResidentMb,
  startBombUpstream,
} from "./_test_bombs.ts";

/** The bound on the collector's peak resident size, in MB (it starts near 90). */
const MAX_RESIDENT_MB = 250;

/**
 * The collector through `main.ts`, writing to the store on 127.0.0.1:`storePort`,
 * with a weather key and no pressure sensor; `env` adds the rest.
 */
function startCollector(storePort: string, env: Record<string, string>) {
  return startMain(["collector"], {
    env: {
      TSDB_HOST: "127.0.0.1",
      TSDB_PORT: storePort,
      WEATHER_API_KEY: "k3y",
      PRESSURE_SENSOR: "none",
      ...env,
    },
  });
}

for (const [what, body] of HOSTILE_BODIES) {
  Deno.test(`main.ts collector fails each weather call whose response is ${what}, in bounded memory`, async () => {
    const hostile = await body();
    const weather = startBombUpstream({
      "data/2.5/weather": hostile,
      "data/2.5/uvi": hostile,
      "data/2.5/forecast": hostile,
    });
    const store = startStore();
    const main = startCollector(String(store.port), {
      WEATHER_BASE_URL: weather.url,
    });
    try {
      for (const path of ["weather", "uvi", "forecast"]) {
        await main.waitFor(
          new RegExp(
            `Weather call /data/2\\.5/${path} returned a body over 4194304 bytes`,
          ),
        );
      }
      const peak = await peakResidentMb(main.child.pid);
      assert.ok(peak < MAX_RESIDENT_MB, `peak resident size ${peak} MB`);
    } finally {
      assert.equal(await main.stop("SIGTERM"), 0);
      await weather.stop();
      await store.close();
    }
  });

  Deno.test(`main.ts collector drops only the points a store refuses with ${what}, in bounded memory`, async () => {
    // A 400 names the points at fault, but its reason cannot be read: the batch is
    // split down to single points, each refused on its own.
    const storeUpstream = startBombUpstream({
      write: { ...await body(), status: 400 },
    });
    const weather = startWeatherStandIn();
    const main = startCollector(String(new URL(storeUpstream.url).port), {
      WEATHER_BASE_URL: weather.url,
    });
    try {
      await main.waitFor(
        /\[ERROR\] Time-series store refused 1 point, dropped: 400 \(its reply unread: The response body is over 1048576 bytes\)$/,
      );
      assert.ok(
        storeUpstream.requests.filter((r) => r === "POST /write").length > 1,
        "the batch was split",
      );
      const peak = await peakResidentMb(main.child.pid);
      assert.ok(peak < MAX_RESIDENT_MB, `peak resident size ${peak} MB`);
    } finally {
      await main.stop("SIGTERM");
      await weather.close();
      await storeUpstream.stop();
    }
  });
}

Deno.test("main.ts collector takes a write as done when the store accepts it with a bomb for a body", async () => {
  // The status says the points are stored: sending them again would be wrong.
  const storeUpstream = startBombUpstream({
    write: await HOSTILE_BODIES[0]![1](),
  });
  const weather = startWeatherStandIn();
  const main = startCollector(String(new URL(storeUpstream.url).port), {
    WEATHER_BASE_URL: weather.url,
    LOG_LEVEL: "DEBUG",
  });
  try {
    await main.waitFor(/\[DEBUG\] Wrote \d+ points?$/);
    assert.deepEqual(storeUpstream.requests, ["POST /write"]);
    assert.doesNotMatch(
      [...main.stdout, ...main.stderr].join("\n"),
      /keeping the points|refused/,
    );
    const peak = await peakResidentMb(main.child.pid);
    assert.ok(peak < MAX_RESIDENT_MB, `peak resident size ${peak} MB`);
  } finally {
    await main.stop("SIGTERM");
    await weather.close();
    await storeUpstream.stop();
  }
});

Deno.test("main.ts collector takes weather replies up to WEATHER_MAX_BYTES, lowered or raised", async (t) => {
  const store = startStore();
  const bombs = startBombUpstream({
    "data/2.5/weather": await HOSTILE_BODIES[0]![1](),
  });
  const standIn = startWeatherStandIn();
  const run = async (
    env: Record<string, string>,
    expected: RegExp,
  ) => {
    const main = startCollector(String(store.port), env);
    try {
      await main.waitFor(expected);
      return await peakResidentMb(main.child.pid);
    } finally {
      await main.stop("SIGTERM");
    }
  };
  try {
    await t.step(
      "a bound below the stand-in's replies fails each call, naming the setting",
      async () => {
        await run(
          { WEATHER_BASE_URL: standIn.url, WEATHER_MAX_BYTES: "64" },
          /Weather call \/data\/2\.5\/weather returned a body over 64 bytes \(WEATHER_MAX_BYTES\)/,
        );
      },
    );
    await t.step(
      "a raised bound still holds against a bomb, in bounded memory",
      async () => {
        const peak = await run(
          { WEATHER_BASE_URL: bombs.url, WEATHER_MAX_BYTES: "16777216" },
          /Weather call \/data\/2\.5\/weather returned a body over 16777216 bytes \(WEATHER_MAX_BYTES\)/,
        );
        assert.ok(peak < MAX_RESIDENT_MB, `peak resident size ${peak} MB`);
      },
    );
  } finally {
    await bombs.stop();
    await standIn.close();
    await store.close();
  }
});

Deno.test("main.ts collector drops only the points a v2 store refuses with an endless JSON body, in bounded memory", async () => {
  // The v2 client library held a JSON error reply whole.
  const storeUpstream = startBombUpstream({
    "api/v2/write": { endless: true, status: 400 },
  });
  const weather = startWeatherStandIn();
  const main = startCollector(String(new URL(storeUpstream.url).port), {
    TSDB_API: "v2",
    TSDB_TOKEN: "t0k",
    WEATHER_BASE_URL: weather.url,
  });
  try {
    await main.waitFor(
      /\[ERROR\] Time-series store refused 1 point, dropped: 400 \(its reply unread: The response body is over 1048576 bytes\)$/,
    );
    assert.ok(storeUpstream.requests.includes("POST /api/v2/write"));
    const peak = await peakResidentMb(main.child.pid);
    assert.ok(peak < MAX_RESIDENT_MB, `peak resident size ${peak} MB`);
  } finally {
    await main.stop("SIGTERM");
    await weather.close();
    await storeUpstream.stop();
  }
});
