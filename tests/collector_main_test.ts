/**
 * The `collector` role through `main.ts` as a subprocess, writing into a real
 * InfluxDB 1.x with pressure from a fake IIO tree and the weather from a stand-in.
 */
import assert from "node:assert/strict";
import { startWeatherStandIn } from "../services/collector/_weather_stand_in.ts";
import { requireBinary, startMain } from "./_helpers.ts";
import { startInfluxd } from "./_influxd.ts";

const influxd = requireBinary("influxd", ["/usr/bin/influxd"]);

async function setUp() {
  const influx = await startInfluxd(influxd.path ?? "influxd");
  await influx.query("CREATE DATABASE home");
  const weather = startWeatherStandIn();
  const iio = await Deno.makeTempDir({ prefix: "homewire-iio-" });
  await Deno.mkdir(`${iio}/iio:device0`);
  await Deno.writeTextFile(`${iio}/iio:device0/name`, "lps25h\n");
  await Deno.writeTextFile(`${iio}/iio:device0/in_pressure_input`, "101.325\n");
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
      const deadline = Date.now() + 10_000;
      while (
        (await t.influx.select("SELECT * FROM home_pressure", "home"))
          .length === 0
      ) {
        if (Date.now() > deadline) throw new Error("No indoor point written");
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(await main.stop("SIGTERM"), 0);
      assert.deepEqual(t.weather.requests, []);
      assert.match(main.stderr.join("\n"), /Received SIGTERM: stopping/);
    } finally {
      await t.tearDown();
    }
  },
});

Deno.test("collector refuses to start without TSDB_HOST or with a bad schedule", async () => {
  const main = startMain(["collector", "--once"], {
    env: { COLLECTOR_SCHEDULE: "every five minutes" },
  });
  assert.equal(await main.exited(), 2);
  const output = main.stderr.join("\n");
  assert.match(output, /^collector: Missing TSDB_HOST: /m);
  assert.match(
    output,
    /^collector: Invalid COLLECTOR_SCHEDULE "every five minutes": expected a five-field cron expression/m,
  );
});
