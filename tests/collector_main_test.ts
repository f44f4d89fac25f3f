/**
 * The `collector` role through `main.ts` as a subprocess, writing into a real
 * InfluxDB 1.x with pressure from a fake IIO tree and the weather from a stand-in.
 */
import assert from "node:assert/strict";
import { startStore } from "../services/collector/_test_store.ts";
import {
  FORECAST_REPLY,
  startWeatherStandIn,
} from "../services/collector/_test_weather.ts";
import { makeFakeIio, requireBinary, startMain } from "./_test_helpers.ts";
import { startInfluxd } from "./_test_influxd.ts";

const influxd = requireBinary("influxd", ["/usr/bin/influxd"]);

async function setUp() {
  const influx = await startInfluxd(influxd.path ?? "influxd");
  await influx.query("CREATE DATABASE home");
  const weather = startWeatherStandIn();
  const iio = await makeFakeIio();
  const env = {
    TSDB_HOST: "127.0.0.1",
    TSDB_PORT: String(influx.port),
    TSDB_DATABASE: "home",
    WEATHER_BASE_URL: weather.url,
    WEATHER_API_KEY: "k3y-secret",
    PRESSURE_SENSOR: "iio",
    PRESSURE_IIO_ROOT: iio,
  };
  return {
    influx,
    weather,
    env,
    async tearDown() {
      await weather.close();
      await influx.stop();
      await Deno.remove(iio, { recursive: true });
    },
  };
}

Deno.test({
  name: "collector --once writes one pass into InfluxDB and exits 0",
  ignore: influxd.ignore,
  async fn() {
    const t = await setUp();
    try {
      const main = startMain(["collector", "--once"], {
        // No Bluetooth adapter here: the thermometer fails (or times out) and the
        // pressure is written all the same.
        env: {
          ...t.env,
          TEMPERATURE_SENSOR: "AA:BB:CC:DD:EE:FF",
          TEMPERATURE_TIMEOUT_MS: "1000",
        },
      });
      assert.equal(await main.exited(), 0);
      const output = main.stderr.join("\n");
      assert.match(
        output,
        /^\d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d \[INFO\] Write \{"time":"[^"]+Z","measurement":"home_pressure","location":"in","fields":\{"value":1013\.25\}\}$/m,
      );
      assert.match(output, /\[ERROR\] Indoor step: no temperature reading: /);
      assert.ok(!output.includes("k3y-secret"));
      const pressure = await t.influx.select(
        "SELECT * FROM home_pressure ORDER BY time",
        "home",
      );
      assert.deepEqual(
        pressure.map((p) => [p.location, p.value]).sort(),
        [["in", 1013.25], ["out", 1016]],
      );
      const forecast = await t.influx.select(
        "SELECT count(temp) FROM home_weather_forecast",
        "home",
      );
      assert.equal(forecast[0]!.count, 3);
      assert.equal(
        (await t.influx.select("SELECT * FROM home_temperature", "home"))
          .length,
        1,
      );
    } finally {
      await t.tearDown();
    }
  },
});

Deno.test({
  name:
    "collector without a weather key runs the indoor step and stops on SIGTERM with 0",
  ignore: influxd.ignore,
  async fn() {
    const t = await setUp();
    try {
      const { WEATHER_API_KEY: _, ...env } = t.env;
      const main = startMain(["collector"], { env });
      await main.waitFor(/collector started: schedule "\*\/5 \* \* \* \*"/);
      await main.waitFor(
        /\[ERROR\] Outdoor step failed: WEATHER_API_KEY is not set/,
      );
      await main.waitFor(/\[INFO\] Write .*"measurement":"home_pressure"/);
      await t.influx.waitForRows("home_pressure", "home", 1);
      assert.equal(await main.stop("SIGTERM"), 0);
      assert.deepEqual(t.weather.requests, []);
      assert.match(main.stderr.join("\n"), /Received SIGTERM: stopping/);
    } finally {
      await t.tearDown();
    }
  },
});

Deno.test("collector refuses to start without TSDB_HOST, with a bad schedule or thermometer address", async () => {
  const main = startMain(["collector", "--once"], {
    env: {
      COLLECTOR_SCHEDULE: "every five minutes",
      TEMPERATURE_SENSOR: "kitchen",
    },
  });
  assert.equal(await main.exited(), 2);
  const output = main.stderr.join("\n");
  assert.match(output, /^collector: Missing TSDB_HOST: /m);
  assert.match(
    output,
    /^collector: Invalid COLLECTOR_SCHEDULE "every five minutes": expected a five-field cron expression/m,
  );
  assert.match(
    output,
    /^collector: Invalid TEMPERATURE_SENSOR "kitchen": expected a Bluetooth address such as AA:BB:CC:DD:EE:FF$/m,
  );
});

Deno.test("collector --once posts v2 writes with the token, skips a non-200 reply with a WARNING and logs a refused batch", async () => {
  const store = startStore();
  const weather = startWeatherStandIn();
  try {
    weather.replies.set("/data/2.5/forecast", { status: 503, body: {} });
    const env = {
      TSDB_HOST: "127.0.0.1",
      TSDB_PORT: String(store.port),
      TSDB_API: "v2",
      TSDB_ORG: "home org",
      TSDB_BUCKET: "sensors",
      TSDB_TOKEN: "s3cret-token",
      WEATHER_BASE_URL: weather.url,
      WEATHER_API_KEY: "k3y",
      WEATHER_UVI_SOURCE: "onecall",
      PRESSURE_SENSOR: "none",
    };
    const main = startMain(["collector", "--once"], { env });
    assert.equal(await main.exited(), 0);
    const output = main.stderr.join("\n");
    assert.match(
      output,
      /\[WARNING\] Weather call \/data\/2\.5\/forecast returned 503: its points are skipped$/m,
    );
    assert.ok(!output.includes("s3cret-token") && !output.includes("k3y"));
    const written =
      `http://127.0.0.1:${store.port}/api/v2/write?org=home%20org&bucket=sensors&precision=ms`;
    assert.deepEqual(store.requests.map((r) => [r.url, r.auth]), [[
      written,
      "Token s3cret-token",
    ]]);
    // The URL logged is the URL requested.
    assert.ok(output.includes(`writing to ${written}`), output);
    assert.deepEqual(
      store.lines().map((line) => line.split(" ")[0]),
      [
        "home_pressure,location=out",
        "home_humidity,location=out",
        "home_temperature,location=out",
        "home_rain,location=out",
        "home_uvi,location=out",
      ],
    );
    assert.deepEqual(
      weather.requests.find((r) => r.path === "/data/3.0/onecall")?.query,
      {
        lat: "40.4165",
        lon: "-3.7026",
        appid: "k3y",
        exclude: "minutely,hourly,daily,alerts",
      },
    );

    // The literal commas of the documented query, not %2C.
    assert.ok(
      weather.targets.includes(
        "/data/3.0/onecall?lat=40.4165&lon=-3.7026&appid=k3y&exclude=minutely,hourly,daily,alerts",
      ),
      weather.targets.join("\n"),
    );

    // Nothing written (the store's verdict on every line): --once says so with its
    // exit code.
    store.statuses.push({
      status: 400,
      body: { error: "unable to parse 'x': invalid field format" },
    });
    const refused = startMain(["collector", "--once"], { env });
    assert.equal(await refused.exited(), 1);
    assert.match(
      refused.stderr.join("\n"),
      /^\d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d \[ERROR\] Time-series store refused 5 points, dropped: 400 unable to parse 'x': invalid field format$/m,
    );
  } finally {
    await weather.close();
    await store.close();
  }
});

Deno.test("collector --once writes a pass larger than TSDB_BUFFER_LIMIT to a healthy store and exits 0", async () => {
  const store = startStore();
  const weather = startWeatherStandIn();
  try {
    const main = startMain(["collector", "--once"], {
      env: {
        TSDB_HOST: "127.0.0.1",
        TSDB_PORT: String(store.port),
        TSDB_BUFFER_LIMIT: "3",
        WEATHER_BASE_URL: weather.url,
        WEATHER_API_KEY: "k3y",
        PRESSURE_SENSOR: "none",
      },
    });
    assert.equal(await main.exited(), 0, main.stderr.join("\n"));
    assert.deepEqual(
      main.stderr.filter((line) => line.includes("[WARNING]")),
      [],
    );
    assert.equal(store.lines().length, 8);
  } finally {
    await weather.close();
    await store.close();
  }
});

Deno.test("collector keeps at most TSDB_BUFFER_LIMIT points after a 503, writes the newest and exits 1", async () => {
  const store = startStore();
  const weather = startWeatherStandIn();
  try {
    store.statuses.push(503);
    const main = startMain(["collector", "--once"], {
      env: {
        TSDB_HOST: "127.0.0.1",
        TSDB_PORT: String(store.port),
        TSDB_BUFFER_LIMIT: "3",
        WEATHER_BASE_URL: weather.url,
        WEATHER_API_KEY: "k3y",
        PRESSURE_SENSOR: "none",
      },
    });
    assert.equal(await main.exited(), 1);
    const warnings = main.stderr.filter((line) => line.includes("[WARNING]"));
    assert.match(
      warnings[0]!,
      /\[WARNING\] Time-series store http:\/\/127\.0\.0\.1:\d+\/write\?db=home&precision=ms unavailable: 503 failure 503; keeping the points for retry$/,
    );
    assert.match(
      warnings[1]!,
      /\[WARNING\] Time-series buffer full \(3 points\): dropped the 5 oldest$/,
    );
    assert.equal(store.requests.length, 2);
    assert.deepEqual(
      store.lines().map((line) => line.split(" ").at(-1)),
      ["1700010800000", "1700021600000", "1700032400000"],
    );
  } finally {
    await weather.close();
    await store.close();
  }
});

Deno.test("collector --once exits 1 when the store stays unreachable", async () => {
  const store = startStore();
  await store.close();
  const weather = startWeatherStandIn();
  try {
    // Only the UV index reply is usable: one point.
    weather.replies.set("/data/2.5/weather", { status: 503 });
    weather.replies.set("/data/2.5/forecast", { status: 503 });
    const main = startMain(["collector", "--once"], {
      env: {
        TSDB_HOST: "127.0.0.1",
        TSDB_PORT: String(store.port),
        PRESSURE_SENSOR: "none",
        WEATHER_API_KEY: "k3y",
        WEATHER_BASE_URL: weather.url,
      },
    });
    assert.equal(await main.exited(), 1);
    const output = main.stderr.join("\n");
    assert.match(
      output,
      /\[WARNING\] Time-series store .* unavailable: .*; keeping the points for retry$/m,
    );
    assert.match(
      output,
      /\[ERROR\] 1 point not written to the time-series store: /,
    );
  } finally {
    await weather.close();
  }
});

Deno.test("collector checks COLLECTOR_SCHEDULE as Deno.cron does", async () => {
  const refused = ["99 * * * *", "*/0 * * * *", "0 25 * * *", "* * * * 8"];
  const runs = refused.map((schedule) =>
    startMain(["collector"], {
      env: { TSDB_HOST: "127.0.0.1", COLLECTOR_SCHEDULE: schedule },
    })
  );
  for (const [index, main] of runs.entries()) {
    assert.equal(await main.exited(), 2, main.stderr.join("\n"));
    assert.match(
      main.stderr.join("\n"),
      new RegExp(
        `^collector: Invalid COLLECTOR_SCHEDULE "${
          refused[index]!.replaceAll("*", "\\*")
        }": expected a five-field cron expression such as "\\*/5 \\* \\* \\* \\*": .+ field`,
        "m",
      ),
    );
  }
  const store = startStore();
  try {
    for (const schedule of ["0 0 * * MON", "* * * JAN *"]) {
      const main = startMain(["collector"], {
        env: {
          TSDB_HOST: "127.0.0.1",
          TSDB_PORT: String(store.port),
          PRESSURE_SENSOR: "none",
          COLLECTOR_SCHEDULE: schedule,
        },
      });
      // The first pass runs after the schedule is registered.
      await main.waitFor(/\[ERROR\] Outdoor step failed: WEATHER_API_KEY/);
      assert.equal(await main.stop("SIGTERM"), 0, main.stderr.join("\n"));
      assert.match(
        main.stderr.join("\n"),
        new RegExp(
          `collector started: schedule "${schedule.replaceAll("*", "\\*")}"`,
        ),
      );
    }
  } finally {
    await store.close();
  }
});

Deno.test("collector refuses WEATHER_LAT and WEATHER_LON out of range, and hides a TSDB_HOST password", async () => {
  const main = startMain(["collector", "--once"], {
    env: {
      TSDB_HOST: "http://u:pw9secret@bad host:80",
      WEATHER_LAT: "999",
      WEATHER_LON: "-181",
    },
  });
  assert.equal(await main.exited(), 2);
  const output = main.stderr.join("\n");
  assert.ok(!output.includes("pw9secret"), output);
  assert.match(
    output,
    /^collector: Invalid WEATHER_LAT "999": expected a latitude from -90 to 90$/m,
  );
  assert.match(
    output,
    /^collector: Invalid WEATHER_LON "-181": expected a longitude from -180 to 180$/m,
  );
  assert.match(
    output,
    /^collector: Invalid TSDB_HOST: "http:\/\/u:\*\*\*@bad host:80" is not a host name or an http\(s\) base URL$/m,
  );
});

Deno.test("collector --once skips a malformed forecast entry alone, naming it", async () => {
  const store = startStore();
  const weather = startWeatherStandIn();
  try {
    const [first, second, third] = FORECAST_REPLY.list;
    const { pressure: _, ...main } = second!.main;
    weather.replies.set("/data/2.5/forecast", {
      body: { ...FORECAST_REPLY, list: [first, { ...second, main }, third] },
    });
    const collector = startMain(["collector", "--once"], {
      env: {
        TSDB_HOST: "127.0.0.1",
        TSDB_PORT: String(store.port),
        WEATHER_BASE_URL: weather.url,
        WEATHER_API_KEY: "k3y",
        PRESSURE_SENSOR: "none",
      },
    });
    assert.equal(await collector.exited(), 0);
    assert.deepEqual(
      collector.stderr.filter((line) => line.includes("[ERROR] Outdoor")).map((
        line,
      ) => line.replace(/^.*\[ERROR\] /, "")),
      ['Outdoor step: forecast entry 1 skipped: no number at "main.pressure"'],
    );
    assert.deepEqual(
      store.lines().filter((line) => line.startsWith("home_weather_forecast"))
        .map((line) => line.split(" ").at(-1)),
      ["1700010800000", "1700032400000"],
    );
  } finally {
    await weather.close();
    await store.close();
  }
});

Deno.test("collector stopped during a slow weather call logs no ERROR and exits 0", async () => {
  const store = startStore();
  const weather = startWeatherStandIn();
  try {
    weather.replies.set("/data/2.5/forecast", { body: {}, delayMs: 30_000 });
    const main = startMain(["collector"], {
      env: {
        TSDB_HOST: "127.0.0.1",
        TSDB_PORT: String(store.port),
        WEATHER_BASE_URL: weather.url,
        WEATHER_API_KEY: "k3y",
        WEATHER_TIMEOUT_MS: "60000",
        PRESSURE_SENSOR: "none",
      },
    });
    await main.waitFor(/collector started/);
    while (!weather.requests.some((r) => r.path === "/data/2.5/forecast")) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(await main.stop("SIGTERM"), 0);
    // The one ERROR is the missing thermometer's, logged before the stop.
    assert.deepEqual(
      main.stderr.filter((line) => line.includes("[ERROR]")).map((line) =>
        line.replace(/^.*\[ERROR\] /, "")
      ),
      [
        "Indoor step: no temperature reading: TEMPERATURE_SENSOR is not set: set the BLE address of the thermometer",
      ],
    );
  } finally {
    await weather.close();
    await store.close();
  }
});
