/**
 * The collector against a real InfluxDB 1.x: every point of docs/collector.md with
 * its field types, the store paused during a pass, and a batch the store refuses.
 */
import assert from "node:assert/strict";
import { createMemoryLog } from "../lib/_test_memory_log.ts";
import { parseSettings } from "../lib/settings.ts";
import { startWeatherStandIn } from "../services/collector/_test_weather.ts";
import { collectorSettings } from "../services/collector/settings.ts";
import {
  type CollectorDependencies,
  startCollector,
} from "../services/collector/start_collector.ts";
import { createLineSender } from "../services/collector/line_sender.ts";
import { tsdbTarget } from "../services/collector/tsdb_target.ts";
import { createTsdbWriter } from "../services/collector/tsdb_writer.ts";
import { requireBinary } from "./_test_helpers.ts";
import { type Influxd, startInfluxd } from "./_test_influxd.ts";

const influxd = requireBinary("influxd", ["/usr/bin/influxd"]);

async function setUp() {
  const influx = await startInfluxd(influxd.path ?? "influxd");
  await influx.query("CREATE DATABASE home");
  const weather = startWeatherStandIn();
  const log = createMemoryLog();
  const ticks: (() => Promise<void>)[] = [];
  const deps = (once: boolean): CollectorDependencies => ({
    log,
    once,
    schedule: (_expression, handler) => ticks.push(handler),
    createPressureSource: () => ({ read: () => Promise.resolve(1009.75) }),
    readTemperature: () =>
      Promise.resolve({ temperature: -2.5, humidity: 47, battery: 88 }),
    backoff: { baseMs: 100, maxMs: 400 },
    finalFlushMs: 5000,
  });
  const settings = (env: Record<string, string> = {}) =>
    parseSettings(collectorSettings, {
      TSDB_HOST: "127.0.0.1",
      TSDB_PORT: String(influx.port),
      TSDB_DATABASE: "home",
      TSDB_TIMEOUT_MS: "500",
      TSDB_BUFFER_PATH: ":memory:",
      WEATHER_API_KEY: "k3y",
      WEATHER_BASE_URL: weather.url,
      TEMPERATURE_SENSOR: "AA:BB:CC:DD:EE:FF",
      ...env,
    });
  return {
    influx,
    weather,
    log,
    ticks,
    deps,
    settings,
    async tearDown() {
      await weather.close();
      await influx.stop();
    },
  };
}

/** Every row of `measurement` as `{time, location, ...fields}` (time in ms). */
function rows(influx: Influxd, measurement: string) {
  return influx.rows(measurement, "home");
}

function waitForRows(influx: Influxd, measurement: string, count: number) {
  return influx.waitForRows(measurement, "home", count);
}

Deno.test({
  name:
    "collector writes every point of docs/collector.md, with its types, into InfluxDB 1.x",
  ignore: influxd.ignore,
  async fn() {
    const t = await setUp();
    try {
      const before = Date.now();
      const role = startCollector(t.settings(), t.deps(true));
      assert.equal(await role.done, 0);
      const time = (await rows(t.influx, "home_pressure"))[0]!.time as number;
      assert.ok(time >= before && time <= Date.now(), "time is the pass start");

      const expected: Record<string, Record<string, unknown>[]> = {
        home_pressure: [
          { time, location: "in", value: 1009.75 },
          { time, location: "out", value: 1016 },
        ],
        home_temperature: [
          { time, location: "in", value: -2.5 },
          { time, location: "out", value: 12.5 },
        ],
        home_humidity: [
          { time, location: "in", value: 47 },
          { time, location: "out", value: 81 },
        ],
        home_rain: [{ time, location: "out", value: true, level: 2 }],
        home_uvi: [{ time, location: "out", value: 3.42 }],
        home_weather_forecast: [
          {
            time: 1700010800000,
            location: "out",
            temp: 13.1,
            humidity: 78,
            rain: true,
            rain_level: 1,
            pressure: 1015,
          },
          {
            time: 1700021600000,
            location: "out",
            temp: 9.25,
            humidity: 90,
            rain: false,
            rain_level: 0,
            pressure: 1014.5,
          },
          {
            time: 1700032400000,
            location: "out",
            temp: -1.5,
            humidity: 95,
            rain: true,
            rain_level: 4,
            pressure: 1012,
          },
        ],
      };
      for (const [measurement, points] of Object.entries(expected)) {
        const found = await rows(t.influx, measurement);
        const sort = (list: Record<string, unknown>[]) =>
          [...list].sort((a, b) =>
            `${a.time}${a.location}`.localeCompare(`${b.time}${b.location}`)
          );
        assert.deepEqual(sort(found), sort(points), measurement);
      }
      const types = {
        home_pressure: { value: "float" },
        home_temperature: { value: "float" },
        home_humidity: { value: "float" },
        home_rain: { value: "boolean", level: "integer" },
        home_uvi: { value: "float" },
        home_weather_forecast: {
          temp: "float",
          humidity: "float",
          rain: "boolean",
          rain_level: "integer",
          pressure: "float",
        },
      };
      for (const [measurement, fields] of Object.entries(types)) {
        assert.deepEqual(
          await t.influx.fieldTypes(measurement, "home"),
          fields,
          measurement,
        );
      }
      const [measurements] = await t.influx.query("SHOW MEASUREMENTS", "home");
      assert.deepEqual(
        measurements!.series![0]!.values.map((v) => v[0]),
        Object.keys(expected).sort(),
      );
      assert.deepEqual(t.log.at("ERROR"), []);
      assert.deepEqual(t.log.at("WARNING"), []);
    } finally {
      await t.tearDown();
    }
  },
});

Deno.test({
  name:
    "collector keeps the points while InfluxDB is paused (SIGSTOP) and writes them after SIGCONT",
  ignore: influxd.ignore,
  async fn() {
    const t = await setUp();
    let role: { stop(): Promise<void> } | undefined;
    try {
      t.influx.kill("SIGSTOP");
      role = startCollector(t.settings(), t.deps(false));
      const deadline = Date.now() + 10_000;
      while (!t.log.at("WARNING").some((w) => w.includes("unavailable"))) {
        if (Date.now() > deadline) throw new Error("No retry WARNING");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.match(
        t.log.at("WARNING")[0]!,
        /^Time-series store http:\/\/127\.0\.0\.1:\d+\/write\?db=home&precision=ms unavailable: no response within 500 ms; keeping the points for retry$/,
      );
      t.influx.kill("SIGCONT");
      await waitForRows(t.influx, "home_weather_forecast", 3);
      await waitForRows(t.influx, "home_pressure", 2);
      await waitForRows(t.influx, "home_temperature", 2);
      await waitForRows(t.influx, "home_uvi", 1);
      assert.deepEqual(t.log.at("ERROR"), []);
    } finally {
      t.influx.kill("SIGCONT");
      await role?.stop();
      await t.tearDown();
    }
  },
});

Deno.test({
  name:
    "collector drops only the point InfluxDB refuses in a partial write, and the next pass still works",
  ignore: influxd.ignore,
  async fn() {
    const t = await setUp();
    let role: { stop(): Promise<void> } | undefined;
    try {
      // A string field in the current shard makes the float home_uvi a type
      // conflict: the store returns 400 "partial write" and stores the rest.
      const seeded = await fetch(`${t.influx.url}/write?db=home&precision=ms`, {
        method: "POST",
        body: `home_uvi,location=out value="high" ${Date.now() - 60_000}`,
      });
      assert.equal(seeded.status, 204);
      await seeded.body?.cancel();
      role = startCollector(t.settings(), t.deps(false));
      const deadline = Date.now() + 10_000;
      while (t.log.at("ERROR").length === 0) {
        if (Date.now() > deadline) throw new Error("No ERROR for the 400");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(t.log.at("ERROR").length, 1);
      assert.match(
        t.log.at("ERROR")[0]!,
        /^Time-series store refused 1 of \d+ points, dropped: 400 partial write: field type conflict: input field "value" on measurement "home_uvi"/,
      );
      assert.equal((await rows(t.influx, "home_pressure")).length, 2);
      await t.influx.query("DROP MEASUREMENT home_uvi", "home");
      await t.ticks[0]!();
      const uvi = await waitForRows(t.influx, "home_uvi", 1);
      assert.equal(uvi[0]!.value, 3.42);
      assert.deepEqual(await t.influx.fieldTypes("home_uvi", "home"), {
        value: "float",
      });
      await waitForRows(t.influx, "home_pressure", 4);
      assert.equal(t.log.at("ERROR").length, 1);
    } finally {
      await role?.stop();
      await t.tearDown();
    }
  },
});

Deno.test({
  name:
    "collector --once counts only the points of an InfluxDB partial write as refused, and exits 1",
  ignore: influxd.ignore,
  async fn() {
    const t = await setUp();
    try {
      // home_uvi.value already an integer: the float UV index conflicts, the other
      // points of the batch are stored.
      const seeded = await fetch(`${t.influx.url}/write?db=home&precision=ms`, {
        method: "POST",
        body: `home_uvi,location=out value=3i ${Date.now() - 60_000}`,
      });
      assert.equal(seeded.status, 204);
      await seeded.body?.cancel();
      const role = startCollector(t.settings(), t.deps(true));
      assert.equal(await role.done, 1);
      const errors = t.log.at("ERROR");
      assert.equal(errors.length, 1, errors.join("\n"));
      const [, total] = errors[0]!.match(
        /^Time-series store refused 1 of (\d+) points, dropped: 400 partial write: field type conflict: input field "value" on measurement "home_uvi" is type float, already exists as type integer dropped=1$/,
      ) ?? assert.fail(errors[0]);
      assert.ok(
        t.log.at("DEBUG").includes(`Wrote ${Number(total) - 1} points`),
      );
      const stored = {
        home_pressure: 2,
        home_temperature: 2,
        home_humidity: 2,
        home_rain: 1,
        home_weather_forecast: 3,
      };
      for (const [measurement, count] of Object.entries(stored)) {
        assert.equal((await rows(t.influx, measurement)).length, count);
      }
      assert.deepEqual(
        (await rows(t.influx, "home_uvi")).map((row) => row.value),
        [3],
      );
    } finally {
      await t.tearDown();
    }
  },
});

Deno.test({
  name:
    "createTsdbWriter() counts the lines InfluxDB could not parse in a partial write",
  ignore: influxd.ignore,
  async fn() {
    const influx = await startInfluxd(influxd.path ?? "influxd");
    const log = createMemoryLog();
    const target = tsdbTarget({
      host: influx.url,
      api: "v1",
      database: "home",
    });
    const writer = createTsdbWriter({
      send: createLineSender(target),
      label: target.label,
      bufferLimit: 100,
      log,
    });
    try {
      await influx.query("CREATE DATABASE home");
      const now = Date.now();
      // InfluxDB stores the lines that parse and returns "dropped=0".
      writer.write([`m value=1 ${now}`, "bad line", `m value=2 ${now + 1}`]);
      assert.equal(await writer.flush(5000), true);
      assert.equal(writer.dropped, 1);
      assert.deepEqual(log.at("ERROR"), [
        `Time-series store refused 1 of 3 points, dropped: 400 partial write: unable to parse 'bad line': invalid field format dropped=0`,
      ]);
      assert.deepEqual(
        (await influx.rows("m", "home")).map((row) => row.value),
        [1, 2],
      );
    } finally {
      await writer.close(1000);
      await influx.stop();
    }
  },
});
