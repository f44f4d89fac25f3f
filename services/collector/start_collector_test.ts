import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { parseSettings } from "../../lib/settings.ts";
import { createRegistry } from "../../lib/metrics/registry.ts";
import { startStore } from "./_test_store.ts";
import { startWeatherStandIn } from "./_test_weather.ts";
import { collectorSettings } from "./settings.ts";
import {
  type CollectorDependencies,
  type Schedule,
  startCollector,
} from "./start_collector.ts";

function harness(env: Record<string, string> = {}) {
  const store = startStore();
  const weather = startWeatherStandIn();
  const settings = parseSettings(collectorSettings, {
    TSDB_HOST: "127.0.0.1",
    TSDB_PORT: String(store.port),
    WEATHER_API_KEY: "k",
    WEATHER_BASE_URL: weather.url,
    TEMPERATURE_SENSOR: "AA:BB:CC:DD:EE:FF",
    TEMPERATURE_TIMEOUT_MS: "200",
    TSDB_BUFFER_PATH: ":memory:",
    ...env,
  });
  const log = createMemoryLog();
  const ticks: { expression: string; handler: () => Promise<void> }[] = [];
  const schedule: Schedule = (expression, handler) => {
    ticks.push({ expression, handler });
  };
  const addresses: string[] = [];
  const deps: CollectorDependencies = {
    log,
    once: false,
    schedule,
    createPressureSource: () => ({ read: () => Promise.resolve(1009.5) }),
    readTemperature: (address) => {
      addresses.push(address);
      return Promise.resolve({ temperature: 21.5, humidity: 40, battery: 90 });
    },
    finalFlushMs: 2000,
  };
  return {
    store,
    weather,
    settings,
    log,
    ticks,
    addresses,
    deps,
    async close() {
      await weather.close();
      await store.close();
    },
  };
}

const ALL = [
  "home_pressure,location=in",
  "home_temperature,location=in",
  "home_humidity,location=in",
  "home_pressure,location=out",
  "home_humidity,location=out",
  "home_temperature,location=out",
  "home_rain,location=out",
  "home_uvi,location=out",
  "home_weather_forecast,location=out",
  "home_weather_forecast,location=out",
  "home_weather_forecast,location=out",
];

function series(lines: string[]): string[] {
  return lines.map((line) => line.split(" ")[0]!).sort();
}

Deno.test("startCollector() runs a pass at start and one per schedule tick", async () => {
  const h = harness({ COLLECTOR_SCHEDULE: "*/10 * * * *" });
  const role = startCollector(h.settings, h.deps);
  try {
    assert.equal(role.done, undefined);
    assert.equal(h.ticks.length, 1);
    assert.equal(h.ticks[0]!.expression, "*/10 * * * *");
    await waitUntil(() => h.store.lines().length === ALL.length);
    await h.ticks[0]!.handler();
    await waitUntil(() => h.store.lines().length === 2 * ALL.length);
    assert.deepEqual(series(h.store.lines()), series([...ALL, ...ALL]));
    assert.deepEqual(h.addresses, ["AA:BB:CC:DD:EE:FF", "AA:BB:CC:DD:EE:FF"]);
    assert.deepEqual(h.log.at("ERROR"), []);
    assert.equal(
      h.log.at("INFO").filter((l) => l.startsWith("Write ")).length,
      2 * ALL.length,
    );
  } finally {
    await role.stop();
    await h.close();
  }
});

Deno.test("startCollector() skips a tick while the previous pass runs", async () => {
  const h = harness();
  let release = () => {};
  const slow = new Promise<void>((resolve) => release = resolve);
  const role = startCollector(h.settings, {
    ...h.deps,
    createPressureSource: () => ({
      read: () => slow.then(() => 1000),
    }),
  });
  try {
    await h.ticks[0]!.handler();
    assert.deepEqual(h.log.at("WARNING"), [
      "Collector pass skipped: the previous pass is still running",
    ]);
    release();
  } finally {
    await role.stop();
    await h.close();
  }
});

Deno.test("startCollector() with once runs one pass and ends after the flush", async () => {
  const h = harness();
  const role = startCollector(h.settings, { ...h.deps, once: true });
  try {
    assert.equal(await role.done, 0);
    assert.deepEqual(series(h.store.lines()), series(ALL));
    assert.equal(h.ticks.length, 0);
  } finally {
    await role.stop();
    await h.close();
  }
});

Deno.test("startCollector() without a weather key still runs the indoor step", async () => {
  const h = harness({ WEATHER_API_KEY: "" });
  const role = startCollector(h.settings, h.deps);
  try {
    await waitUntil(() => h.store.lines().length === 3);
    await h.ticks[0]!.handler();
    await waitUntil(() => h.store.lines().length === 6);
    assert.deepEqual(h.log.at("ERROR"), [
      "Outdoor step failed: WEATHER_API_KEY is not set: set the OpenWeatherMap API key",
      "Outdoor step failed: WEATHER_API_KEY is not set: set the OpenWeatherMap API key",
    ]);
    assert.deepEqual(h.weather.requests, []);
  } finally {
    await role.stop();
    await h.close();
  }
});

Deno.test("startCollector() without a thermometer address still writes pressure", async () => {
  const h = harness({ TEMPERATURE_SENSOR: "" });
  const role = startCollector(h.settings, { ...h.deps, once: true });
  try {
    assert.equal(await role.done, 0);
    assert.ok(
      h.store.lines().some((l) => l.startsWith("home_pressure,location=in ")),
    );
    assert.ok(
      !h.store.lines().some((l) =>
        l.startsWith("home_temperature,location=in ")
      ),
    );
    assert.deepEqual(h.log.at("ERROR"), [
      "Indoor step: no temperature reading: TEMPERATURE_SENSOR is not set: set the BLE address of the thermometer",
    ]);
    assert.deepEqual(h.addresses, []);
  } finally {
    await h.close();
  }
});

Deno.test("startCollector() stop() aborts a hung thermometer and flushes", async () => {
  const h = harness({ TEMPERATURE_TIMEOUT_MS: "60000" });
  const role = startCollector(h.settings, {
    ...h.deps,
    readTemperature: (_address, { signal }) =>
      new Promise((_, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason))
      ),
  });
  await waitUntil(() => h.store.lines().length === ALL.length - 3);
  await role.stop();
  // Cut short by the stop: DEBUG, not ERROR.
  assert.deepEqual(h.log.at("ERROR"), []);
  assert.match(
    h.log.at("DEBUG").join("\n"),
    /^Indoor step: temperature read stopped: /m,
  );
  assert.ok(
    h.store.lines().some((l) => l.startsWith("home_pressure,location=in ")),
  );
  await h.close();
});

Deno.test("startCollector() stop() during a slow weather call logs no ERROR", async () => {
  const h = harness();
  h.weather.replies.set("/data/2.5/forecast", { body: {}, delayMs: 5000 });
  const role = startCollector(h.settings, h.deps);
  try {
    await waitUntil(() =>
      h.weather.requests.some((r) => r.path === "/data/2.5/forecast")
    );
    await waitUntil(() => h.store.lines().length === 3);
    await role.stop();
    assert.deepEqual(h.log.at("ERROR"), []);
    assert.match(
      h.log.at("DEBUG").join("\n"),
      /^Outdoor step: forecast call stopped: /m,
    );
  } finally {
    await h.close();
  }
});

Deno.test("startCollector() with once ends with 1 when the store refuses the points", async () => {
  const h = harness();
  const unparsed = {
    status: 400,
    body: { error: "unable to parse 'x': invalid field format" },
  };
  h.store.statuses.push(unparsed, unparsed, unparsed);
  const role = startCollector(h.settings, { ...h.deps, once: true });
  try {
    assert.equal(await role.done, 1);
    assert.deepEqual(h.store.lines(), []);
    assert.ok(h.log.at("ERROR").length > 0);
  } finally {
    await h.close();
  }
});

Deno.test("startCollector() with once ends with 1 when the pass collected nothing", async () => {
  const h = harness();
  const settings = { ...h.settings, WEATHER_API_KEY: undefined };
  const role = startCollector(settings, {
    ...h.deps,
    once: true,
    createPressureSource: () => ({
      read: () => Promise.reject(new Error("No pressure device")),
    }),
    readTemperature: () => Promise.reject(new Error("No Bluetooth adapter")),
  });
  try {
    assert.equal(await role.done, 1);
    assert.deepEqual(h.store.lines(), []);
    assert.equal(
      h.log.at("ERROR").at(-1),
      "The pass collected no point: nothing to write",
    );
  } finally {
    await h.close();
  }
});

Deno.test("startCollector() with once stopped before it collected anything ends with 0", async () => {
  const h = harness();
  const settings = { ...h.settings, WEATHER_API_KEY: undefined };
  const role = startCollector(settings, {
    ...h.deps,
    once: true,
    createPressureSource: () => ({
      read: () => Promise.reject(new Error("No pressure device")),
    }),
    readTemperature: () =>
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error("No reading")), 100)
      ),
  });
  try {
    await role.stop();
    assert.equal(await role.done, 0);
    assert.ok(
      !h.log.at("ERROR").includes(
        "The pass collected no point: nothing to write",
      ),
    );
  } finally {
    await h.close();
  }
});

Deno.test("startCollector() with once ends with 1 when the store stays unreachable", async () => {
  const h = harness();
  await h.store.close();
  const role = startCollector(h.settings, {
    ...h.deps,
    once: true,
    finalFlushMs: 300,
    backoff: { baseMs: 10, maxMs: 40 },
  });
  try {
    assert.equal(await role.done, 1);
    assert.match(
      h.log.at("ERROR").at(-1)!,
      /^11 points not written to the time-series store: /,
    );
  } finally {
    await h.close();
  }
});

Deno.test("startCollector() with once writes a pass larger than TSDB_BUFFER_LIMIT and ends with 0", async () => {
  const h = harness({ TSDB_BUFFER_LIMIT: "3" });
  const role = startCollector(h.settings, { ...h.deps, once: true });
  try {
    assert.equal(await role.done, 0);
    assert.deepEqual(series(h.store.lines()), series(ALL));
    assert.deepEqual(h.log.at("WARNING"), []);
  } finally {
    await h.close();
  }
});

Deno.test("startCollector() writes to TSDB_PORT when TSDB_HOST is a URL without a port", async () => {
  const h = harness({ TSDB_HOST: "http://127.0.0.1" });
  const role = startCollector(h.settings, {
    ...h.deps,
    once: true,
    finalFlushMs: 500,
  });
  try {
    assert.equal(await role.done, 0);
    assert.deepEqual(series(h.store.lines()), series(ALL));
    assert.equal(
      h.store.requests[0]!.url,
      `http://127.0.0.1:${h.store.port}/write?db=home&precision=ms`,
    );
  } finally {
    await h.close();
  }
});

async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
) {
  const deadline = Date.now() + timeoutMs;
  while (!await condition()) {
    if (Date.now() > deadline) throw new Error("Condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

Deno.test("startCollector() writes each BLE_SENSORS sensor with its sensor tag, a missing one failing alone", async () => {
  const h = harness({
    TEMPERATURE_SENSOR: "",
    WEATHER_API_KEY: "",
    BLE_SENSORS:
      "kitchen=pvvx:A4:C1:38:00:00:01,hall=bthome:A4:C1:38:00:00:02,garage=atc1441:A4:C1:38:00:00:03",
  });
  const scans: string[][] = [];
  const role = startCollector(h.settings, {
    ...h.deps,
    once: true,
    readSensors: (sensors) => {
      scans.push(sensors.map((s) => `${s.name}=${s.kind}:${s.address}`));
      return Promise.resolve(
        new Map([
          ["kitchen", { temperature: 21.34, humidity: 45.5, battery: 80 }],
          ["hall", { temperature: 19.5 }],
        ]),
      );
    },
  });
  try {
    assert.equal(await role.done, 0);
    assert.deepEqual(scans, [[
      "kitchen=pvvx:a4c138000001",
      "hall=bthome:a4c138000002",
      "garage=atc1441:a4c138000003",
    ]]);
    assert.deepEqual(
      h.store.lines().map((line) => line.replace(/ \d+$/, "")).sort(),
      [
        "home_battery,location=in,sensor=kitchen value=80",
        "home_humidity,location=in,sensor=kitchen value=45.5",
        "home_pressure,location=in value=1009.5",
        "home_temperature,location=in,sensor=hall value=19.5",
        "home_temperature,location=in,sensor=kitchen value=21.34",
      ],
    );
    assert.deepEqual(h.log.at("ERROR").sort(), [
      'Indoor step: no reading from BLE sensor "garage" within 200 ms',
      "Outdoor step failed: WEATHER_API_KEY is not set: set the OpenWeatherMap API key",
    ]);
    assert.match(
      h.log.at("INFO").join("\n"),
      /Write \{"time":"[^"]+","measurement":"home_temperature","location":"in","sensor":"hall","fields":\{"value":19\.5\}\}/,
    );
    assert.deepEqual(h.addresses, [], "no TEMPERATURE_SENSOR scan");
  } finally {
    await h.close();
  }
});

Deno.test("startCollector() keeps writing TEMPERATURE_SENSOR as before next to BLE_SENSORS, one scan after the other", async () => {
  const h = harness({
    WEATHER_API_KEY: "",
    BLE_SENSORS: "kitchen=pvvx:A4:C1:38:00:00:01",
  });
  const order: string[] = [];
  const role = startCollector(h.settings, {
    ...h.deps,
    once: true,
    readTemperature: async (address) => {
      order.push(`thermometer ${address}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      order.push("thermometer done");
      return { temperature: 21.5, humidity: 40, battery: 90 };
    },
    readSensors: () => {
      order.push("sensors");
      return Promise.reject(new Error("Bluetooth is unavailable: no adapter"));
    },
  });
  try {
    assert.equal(await role.done, 0);
    assert.deepEqual(order, [
      "thermometer AA:BB:CC:DD:EE:FF",
      "thermometer done",
      "sensors",
    ]);
    assert.deepEqual(
      h.store.lines().map((line) => line.replace(/ \d+$/, "")).sort(),
      [
        "home_humidity,location=in value=40",
        "home_pressure,location=in value=1009.5",
        "home_temperature,location=in value=21.5",
      ],
    );
    assert.deepEqual(h.log.at("ERROR").sort(), [
      "Indoor step: no reading from the BLE sensors (kitchen): Bluetooth is unavailable: no adapter",
      "Outdoor step failed: WEATHER_API_KEY is not set: set the OpenWeatherMap API key",
    ]);
  } finally {
    await h.close();
  }
});

Deno.test("startCollector() exports its passes, writes and readings as metrics", async () => {
  const h = harness();
  const registry = createRegistry();
  const role = startCollector(h.settings, {
    ...h.deps,
    metrics: registry.with({ role: "collector" }),
  });
  try {
    await waitUntil(() => h.store.lines().length === ALL.length);
    let text = "";
    await waitUntil(async () => {
      text = await registry.render();
      return /^homewire_collector_points_written_total\{role="collector"\} 11$/m
        .test(text);
    });
    assert.match(
      text,
      /^homewire_collector_passes_total\{role="collector",outcome="collected"\} 1$/m,
    );
    assert.match(
      text,
      /^homewire_sensor_temperature_celsius\{role="collector",sensor="in",location="in"\} 21.5$/m,
    );
    assert.match(
      text,
      /^homewire_sensor_pressure_pascals\{role="collector",sensor="in",location="in"\} 100950$/m,
    );
    assert.match(
      text,
      /^homewire_collector_last_write_timestamp_seconds\{role="collector"\} \d/m,
    );
    assert.equal(await role.ready?.(), undefined);
  } finally {
    await role.stop();
    await h.close();
  }
});
