/**
 * What the collector does with its durable buffer (`TSDB_BUFFER_PATH`) when a real
 * store refuses a write, through `main.ts collector`: a missing database, refused
 * credentials and a body too large keep the points (one ERROR saying what to do) and
 * they arrive once the store takes them (InfluxDB 1.x and VictoriaMetrics).
 */
import assert from "node:assert/strict";
import { startStore } from "../services/collector/_test_store.ts";
import { startWeatherStandIn } from "../services/collector/_test_weather.ts";
import { makeFakeIio, requireBinary, startMain } from "./_test_helpers.ts";
import {
  type Influxd,
  type InfluxdOptions,
  startInfluxd,
} from "./_test_influxd.ts";
import { startVictoria, type VictoriaOptions } from "./_test_victoria.ts";

const influxd = requireBinary("influxd", ["/usr/bin/influxd"]);
const victoria = requireBinary("victoria-metrics", [
  "/usr/bin/victoria-metrics",
]);

/** A weather stand-in, a fake IIO tree and a buffer folder around `work`. */
async function withCollectorInputs(
  work: (env: Record<string, string>) => Promise<void>,
): Promise<void> {
  const weather = startWeatherStandIn();
  const iio = await makeFakeIio();
  const dir = await Deno.makeTempDir({ prefix: "homewire-refusals-" });
  try {
    await work({
      TSDB_HOST: "127.0.0.1",
      TSDB_DATABASE: "home",
      TSDB_BUFFER_PATH: `${dir}/buffer.sqlite3`,
      WEATHER_BASE_URL: weather.url,
      WEATHER_API_KEY: "k3y",
      PRESSURE_SENSOR: "iio",
      PRESSURE_IIO_ROOT: iio,
    });
  } finally {
    await weather.close();
    await Deno.remove(iio, { recursive: true });
    await Deno.remove(dir, { recursive: true });
  }
}

async function withInfluxd(
  options: InfluxdOptions,
  work: (influx: Influxd, env: Record<string, string>) => Promise<void>,
): Promise<void> {
  const influx = await startInfluxd(influxd.path ?? "influxd", options);
  try {
    await withCollectorInputs((env) =>
      work(influx, { ...env, TSDB_PORT: String(influx.port) })
    );
  } finally {
    await influx.stop();
  }
}

/** The points of one pass: indoor pressure, 5 outdoor points, 3 forecasts. */
const PASS = {
  home_pressure: 2,
  home_temperature: 1,
  home_humidity: 1,
  home_rain: 1,
  home_uvi: 1,
  home_weather_forecast: 3,
};

async function assertOnePassStored(influx: Influxd): Promise<void> {
  for (const [measurement, count] of Object.entries(PASS)) {
    const rows = await influx.waitForRows(measurement, "home", count);
    assert.equal(rows.length, count, measurement);
  }
}

/** The ERROR lines about the store (no thermometer is set: that one is left out). */
function errors(lines: readonly string[]): string[] {
  return lines.filter((line) => line.includes("[ERROR] Time-series"));
}

Deno.test({
  name:
    "collector keeps the buffered points while InfluxDB has no database, with one ERROR, and writes them after CREATE DATABASE",
  ignore: influxd.ignore,
  async fn() {
    await withInfluxd({}, async (influx, env) => {
      const main = startMain(["collector"], {
        env: { ...env, LOG_LEVEL: "DEBUG" },
      });
      try {
        const error = await main.waitFor(/\[ERROR\] Time-series/);
        assert.match(
          error,
          /\[ERROR\] Time-series store http:\/\/127\.0\.0\.1:\d+\/write\?db=home&precision=ms refused the write: 404 database not found: "home"; keeping the points and retrying: create the database \(CREATE DATABASE "home"\) or set TSDB_DATABASE to an existing one$/,
        );
        // Refused again and again: the points stay, and the ERROR is not repeated.
        await main.waitFor(/\[DEBUG\] Write retry 2 failed: 404 /);
        await influx.query("CREATE DATABASE home");
        await main.waitFor(/\[INFO\] Time-series store reachable again/);
        await assertOnePassStored(influx);
        assert.equal(errors(main.stderr).length, 1, main.stderr.join("\n"));
        assert.doesNotMatch(main.stderr.join("\n"), /dropped/);
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0, main.stderr.join("\n"));
      }
    });
  },
});

Deno.test({
  name:
    "collector keeps the buffered points while InfluxDB refuses its user (401, then 403) and writes them once the user may write",
  ignore: influxd.ignore,
  async fn() {
    const admin = { username: "admin", password: "adm1n-pass" };
    await withInfluxd({ admin }, async (influx, env) => {
      await influx.query("CREATE DATABASE home");
      const main = startMain(["collector"], {
        env: {
          ...env,
          TSDB_USERNAME: "writer",
          TSDB_PASSWORD: "wr1ter-pass",
        },
      });
      try {
        assert.match(
          await main.waitFor(/\[ERROR\] Time-series/),
          /refused the write: 401 authorization failed; keeping the points and retrying: set TSDB_USERNAME and TSDB_PASSWORD to a user of the store allowed to write$/,
        );
        await influx.query(`CREATE USER writer WITH PASSWORD 'wr1ter-pass'`);
        assert.match(
          await main.waitFor(/\[ERROR\] .* 403 /),
          /refused the write: 403 "writer" user is not authorized to write to database "home"; keeping the points and retrying: give the user write access \(GRANT WRITE ON "home" TO "writer"\) or set TSDB_USERNAME and TSDB_PASSWORD to one that has it$/,
        );
        await influx.query(`GRANT WRITE ON home TO writer`);
        await main.waitFor(/\[INFO\] Time-series store reachable again/);
        await assertOnePassStored(influx);
        const output = main.stderr.join("\n");
        assert.equal(errors(main.stderr).length, 2, output);
        assert.doesNotMatch(output, /dropped|wr1ter-pass/);
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0, main.stderr.join("\n"));
      }
    });
  },
});

Deno.test({
  name:
    "collector --once sends a batch InfluxDB finds too large (413) in smaller requests and loses no point",
  ignore: influxd.ignore,
  async fn() {
    // A pass is about 700 bytes of line protocol; one line at most 110.
    await withInfluxd({ maxBodySize: 300 }, async (influx, env) => {
      await influx.query("CREATE DATABASE home");
      const main = startMain(["collector", "--once"], {
        env: { ...env, LOG_LEVEL: "DEBUG" },
      });
      assert.equal(await main.exited(), 0, main.stderr.join("\n"));
      const output = main.stderr.join("\n");
      assert.match(
        output,
        /\[DEBUG\] Time-series store refused \d+ points at once \(413 Request Entity Too Large\): sending \d+ at a time/,
      );
      assert.deepEqual(errors(main.stderr), []);
      await assertOnePassStored(influx);
    });
  },
});

async function withVictoria(
  options: VictoriaOptions,
  work: (
    vm: Awaited<ReturnType<typeof startVictoria>>,
    env: Record<string, string>,
  ) => Promise<void>,
): Promise<void> {
  const vm = await startVictoria(victoria.path ?? "victoria-metrics", options);
  try {
    await withCollectorInputs((env) =>
      work(vm, { ...env, TSDB_PORT: String(vm.port) })
    );
  } finally {
    await vm.stop();
  }
}

Deno.test({
  name:
    "collector keeps the points VictoriaMetrics refused with 401 in its buffer across a SIGKILL, and writes them with the right password",
  ignore: victoria.ignore,
  async fn() {
    const auth = { username: "vm-user", password: "vm-pass" };
    await withVictoria({ auth }, async (vm, env) => {
      const refused = startMain(["collector"], {
        env: { ...env, TSDB_USERNAME: "vm-user", TSDB_PASSWORD: "wrong" },
      });
      assert.match(
        await refused.waitFor(/\[ERROR\] Time-series/),
        /refused the write: 401; keeping the points and retrying: set TSDB_USERNAME and TSDB_PASSWORD/,
      );
      assert.notEqual(await refused.stop("SIGKILL"), 0);

      const next = startMain(["collector", "--once"], {
        env: { ...env, TSDB_USERNAME: "vm-user", TSDB_PASSWORD: "vm-pass" },
      });
      assert.equal(await next.exited(), 0, next.stderr.join("\n"));
      assert.match(
        next.stderr.join("\n"),
        /Time-series buffer holds \d+ points? from an earlier run/,
      );
      // Both passes: the refused one from the buffer, and this one.
      const series = await vm.exportSeries(
        'home_pressure_value{location="in"}',
        2,
      );
      assert.equal(series[0]?.values.length, 2, JSON.stringify(series));
    });
  },
});

Deno.test("collector masks a secret setting a store's refusal quotes, in the configured log format", async () => {
  const store = startStore();
  // A gateway that quotes the credentials it refused.
  store.statuses.push({
    status: 401,
    body: { error: 'password "wr1ter-pass" refused for user "writer"' },
  });
  try {
    await withCollectorInputs(async (env) => {
      const main = startMain(["collector"], {
        env: {
          ...env,
          TSDB_PORT: String(store.port),
          TSDB_USERNAME: "writer",
          TSDB_PASSWORD: "wr1ter-pass",
          LOG_FORMAT: "json",
        },
      });
      try {
        await main.waitFor(/"level":"ERROR".*Time-series store/);
        await main.waitFor(/Time-series store reachable again/);
      } finally {
        assert.equal(await main.stop("SIGTERM"), 0);
      }
      const output = [...main.stdout, ...main.stderr];
      assert.ok(!output.join("\n").includes("wr1ter-pass"), output.join("\n"));
      for (const line of main.stderr) JSON.parse(line);
      assert.ok(
        main.stderr.some((line) =>
          JSON.parse(line).message.includes(
            '401 password "****" refused for user "writer"',
          )
        ),
      );
    });
  } finally {
    await store.close();
  }
});
