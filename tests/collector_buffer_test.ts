/**
 * The collector's durable buffer (`TSDB_BUFFER_PATH`) through `main.ts collector`
 * against a real InfluxDB 1.x: points collected while the store is paused, or in a
 * write the store had not yet responded, survive SIGKILL and are written after the
 * next start, once each, with their original times.
 */
import assert from "node:assert/strict";
import { startWeatherStandIn } from "../services/collector/_test_weather.ts";
import {
  freePort,
  type MainProcess,
  makeFakeIio,
  requireBinary,
  startMain,
} from "./_test_helpers.ts";
import { startInfluxd } from "./_test_influxd.ts";

const influxd = requireBinary("influxd", ["/usr/bin/influxd"]);

async function setUp() {
  const influx = await startInfluxd(influxd.path ?? "influxd");
  await influx.query("CREATE DATABASE home");
  const weather = startWeatherStandIn();
  const iio = await makeFakeIio();
  const dir = await Deno.makeTempDir({ prefix: "homewire-buffer-" });
  const env = (port: number) => ({
    TSDB_HOST: "127.0.0.1",
    TSDB_PORT: String(port),
    TSDB_DATABASE: "home",
    TSDB_BUFFER_PATH: `${dir}/buffer/collector.sqlite3`,
    WEATHER_BASE_URL: weather.url,
    WEATHER_API_KEY: "k3y",
    PRESSURE_SENSOR: "iio",
    PRESSURE_IIO_ROOT: iio,
  });
  return {
    influx,
    dir,
    env,
    async tearDown() {
      await weather.close();
      await influx.stop();
      await Deno.remove(iio, { recursive: true });
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The time of the indoor pressure point a run logged (epoch ms). */
async function indoorPressureTime(main: MainProcess): Promise<number> {
  const line = await main.waitFor(
    /\[INFO\] Write \{"time":"[^"]+","measurement":"home_pressure","location":"in"/,
  );
  return Date.parse(/"time":"([^"]+)"/.exec(line)![1]!);
}

async function kill9(main: MainProcess): Promise<void> {
  const code = await main.stop("SIGKILL");
  assert.notEqual(code, 0);
}

async function indoorTimes(
  influx: { select(q: string, db: string): Promise<Record<string, unknown>[]> },
): Promise<number[]> {
  const rows = await influx.select(
    `SELECT value FROM home_pressure WHERE location = 'in' ORDER BY time`,
    "home",
  );
  return rows.map((row) => Number(row.time));
}

Deno.test({
  name:
    "collector: points collected while the store is stopped survive SIGKILL and are written after the restart",
  ignore: influxd.ignore,
  async fn() {
    const t = await setUp();
    try {
      t.influx.kill("SIGSTOP");
      const env = { ...t.env(t.influx.port), TSDB_TIMEOUT_MS: "300" };
      const times: number[] = [];
      for (let run = 0; run < 2; run++) {
        const main = startMain(["collector"], { env });
        times.push(await indoorPressureTime(main));
        await main.waitFor(/\[WARNING\] Time-series store .* unavailable/);
        await kill9(main);
      }
      t.influx.kill("SIGCONT");

      const last = startMain(["collector", "--once"], { env });
      assert.equal(await last.exited(), 0, last.stderr.join("\n"));
      times.push(await indoorPressureTime(last));
      const output = last.stderr.join("\n");
      assert.match(
        output,
        /\[INFO\] Time-series buffer holds \d+ points from an earlier run: writing them first, with their original times$/m,
      );
      // Every pass's point, once, with the time it was collected at.
      assert.deepEqual(await indoorTimes(t.influx), times);
      // Nothing is left in the buffer: a further run writes only its own pass.
      const again = startMain(["collector", "--once"], { env });
      assert.equal(await again.exited(), 0);
      assert.doesNotMatch(again.stderr.join("\n"), /from an earlier run/);
    } finally {
      t.influx.kill("SIGCONT");
      await t.tearDown();
    }
  },
});

Deno.test({
  name:
    "collector: a write cut by SIGKILL before the store responded is sent again after the restart, stored once",
  ignore: influxd.ignore,
  async fn() {
    const t = await setUp();
    // A slow store: the request reaches InfluxDB (the points are stored), but the
    // response is held back until `release` while `holding` is true.
    let holding = true;
    let release!: () => void;
    const held = new Promise<void>((resolve) => release = resolve);
    const forwarded: string[] = [];
    let stored!: () => void;
    const firstStored = new Promise<void>((resolve) => stored = resolve);
    const port = freePort();
    const proxy = Deno.serve({
      hostname: "127.0.0.1",
      port,
      onListen() {},
    }, async (request) => {
      const url = new URL(request.url);
      const body = await request.text();
      const reply = await fetch(
        `${t.influx.url}${url.pathname}${url.search}`,
        { method: request.method, headers: request.headers, body },
      );
      const text = await reply.text();
      forwarded.push(body);
      if (holding) {
        stored();
        await held;
      }
      return new Response(text || null, { status: reply.status });
    });
    try {
      // Indoor points only, so that the held write is the one carrying them.
      const { WEATHER_API_KEY: _, ...indoor } = t.env(port);
      const env = { ...indoor, TSDB_TIMEOUT_MS: "60000" };
      const first = startMain(["collector"], { env });
      const killedTime = await indoorPressureTime(first);
      await firstStored;
      assert.deepEqual(await indoorTimes(t.influx), [killedTime]);
      await kill9(first);
      holding = false;
      release();

      const forwardedBefore = forwarded.length;
      const second = startMain(["collector", "--once"], { env });
      assert.equal(await second.exited(), 0, second.stderr.join("\n"));
      const secondTime = await indoorPressureTime(second);
      // The unacknowledged point was sent again, with its original time.
      const resent = forwarded.slice(forwardedBefore).join("\n");
      assert.match(
        resent,
        new RegExp(
          `^home_pressure,location=in value=1013\\.25 ${killedTime}$`,
          "m",
        ),
      );
      // InfluxDB keeps one point per series and time: written twice, stored once.
      assert.deepEqual(await indoorTimes(t.influx), [killedTime, secondTime]);
    } finally {
      release();
      await proxy.shutdown();
      await t.tearDown();
    }
  },
});

Deno.test({
  name:
    "collector: an unreadable or newer buffer file is one ERROR naming TSDB_BUFFER_PATH, exit 1, and is kept",
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "homewire-buffer-" });
    try {
      const path = `${dir}/buffer.sqlite3`;
      const junk = "not a database\n".repeat(200);
      await Deno.writeTextFile(path, junk);
      const env = {
        TSDB_HOST: "127.0.0.1",
        TSDB_PORT: String(freePort()),
        TSDB_BUFFER_PATH: path,
        PRESSURE_SENSOR: "none",
      };
      const main = startMain(["collector", "--once"], { env });
      assert.equal(await main.exited(), 1);
      const errors = main.stderr.filter((line) => line.includes("[ERROR]"));
      assert.equal(errors.length, 1, main.stderr.join("\n"));
      assert.match(
        errors[0]!,
        /\[ERROR\] Cannot start collector: TSDB_BUFFER_PATH: cannot read ".*buffer\.sqlite3": file is not a database: move the file away \(it is left as it is\)/,
      );
      assert.equal(await Deno.readTextFile(path), junk);

      // A newer format.
      const { DatabaseSync } = await import("node:sqlite");
      const newer = `${dir}/newer.sqlite3`;
      const db = new DatabaseSync(newer);
      db.exec("PRAGMA user_version = 2");
      db.exec("CREATE TABLE points (id INTEGER PRIMARY KEY, line TEXT)");
      db.close();
      const refused = startMain(["collector", "--once"], {
        env: { ...env, TSDB_BUFFER_PATH: newer },
      });
      assert.equal(await refused.exited(), 1);
      const refusal = refused.stderr.filter((line) => line.includes("[ERROR]"));
      assert.equal(refusal.length, 1, refused.stderr.join("\n"));
      assert.match(
        refusal[0]!,
        /TSDB_BUFFER_PATH: the file was written by a newer homewire \(buffer format 2; this version reads 1\)/,
      );
      assert.ok((await Deno.stat(newer)).size > 0);

      // One collector per file: a second one is refused, the first goes on.
      const shared = { ...env, TSDB_BUFFER_PATH: `${dir}/shared.sqlite3` };
      const running = startMain(["collector"], { env: shared });
      await running.waitFor(/collector started/);
      const second = startMain(["collector", "--once"], { env: shared });
      assert.equal(await second.exited(), 1);
      assert.match(
        second.stderr.join("\n"),
        /\[ERROR\] Cannot start collector: TSDB_BUFFER_PATH: ".*shared\.sqlite3" is in use by another running collector: give each collector its own file/,
      );
      assert.equal(await running.stop("SIGTERM"), 0);

      // Unset, the buffer is ./data/collector-buffer.sqlite3, its folder created.
      const { TSDB_BUFFER_PATH: _, ...defaults } = env;
      const fresh = startMain(["collector", "--once"], {
        env: defaults,
        cwd: dir,
      });
      await fresh.exited();
      assert.ok(
        (await Deno.stat(`${dir}/data/collector-buffer.sqlite3`)).isFile,
        fresh.stderr.join("\n"),
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
