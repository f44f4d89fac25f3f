/**
 * The program as a 64-bit Raspberry Pi OS runs it: the arm64 Deno of our Deno version
 * (the npm registry's `@deno/linux-arm64-glibc`, laid in `.cache/aarch64/` by
 * `scripts/install_deps.sh`) under `qemu-aarch64-static` with Debian's arm64 C
 * libraries, on the same project folder and `node_modules` (so the npm packages'
 * arm64 prebuilds are the ones loaded). The emulator is slow: each process starts
 * once and several things are checked against it, with generous time-outs.
 *
 * Skipped with a printed reason when the emulator, the libraries or the arm64 Deno
 * are missing; with `CI=true` it runs and fails on what is missing.
 */
import assert from "node:assert/strict";
import { linuxHasNoAdapter } from "../drivers/ble/_adapter_state.ts";
import {
  CURRENT_REPLY,
  startWeatherStandIn,
} from "../services/collector/_test_weather.ts";
import {
  listeningUrl,
  type MainProcess,
  makeFakeIio,
  requireBinary,
  startMain,
} from "./_test_helpers.ts";
import { startInfluxd } from "./_test_influxd.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const SYSROOT = "/usr/aarch64-linux-gnu";
const ARM64_DENO = `${ROOT}.cache/aarch64/deno-${Deno.version.deno}/deno`;
/** A start under the emulator takes seconds, more on a busy machine. */
const SLOW_MS = 180_000;
const ADDRESS = "AA:BB:CC:DD:EE:FF";

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

const qemu = requireBinary("qemu-aarch64-static");
const missing = [
  ...(exists(`${SYSROOT}/lib/libc.so.6`)
    ? []
    : [`the arm64 C library (${SYSROOT}/lib/libc.so.6, libc6-arm64-cross)`]),
  ...(exists(`${SYSROOT}/lib/libstdc++.so.6`) ? [] : [
    `the arm64 C++ library (${SYSROOT}/lib/libstdc++.so.6, libstdc++6-arm64-cross)`,
  ]),
  ...(exists(ARM64_DENO) ? [] : [`the arm64 Deno (${ARM64_DENO})`]),
];
const CI = Deno.env.get("CI") === "true";
if (missing.length > 0 && !CI) {
  console.warn(
    `Skipping the aarch64 suite: missing ${
      missing.join(", ")
    } (bash scripts/install_deps.sh lays them)`,
  );
}
const ignore = qemu.ignore || (missing.length > 0 && !CI);
const influxd = requireBinary("influxd", ["/usr/bin/influxd"]);
const hasAdapter = !(await linuxHasNoAdapter("/sys/class/bluetooth"));
if (hasAdapter) {
  console.warn(
    "Skipping the aarch64 reader check: this machine has a Bluetooth adapter, so the reader scans instead of failing at once",
  );
}

/** `deno` on the Pi: the arm64 build, through the emulator. */
function runtime(): string[] {
  assert.deepEqual(
    missing,
    [],
    `The aarch64 suite needs ${missing.join(", ")}`,
  );
  assert.ok(qemu.path, "qemu-aarch64-static is not installed");
  return [qemu.path, "-L", SYSROOT, ARM64_DENO];
}

/**
 * Starts `main.ts` under the emulator in `cwd`, a temporary folder the test removes
 * (relative paths such as the collector's `./data/collector-buffer.sqlite3` land
 * there, never in the repository).
 */
function startPi(
  args: string[],
  cwd: string,
  env: Record<string, string> = {},
) {
  return startMain(args, { runtime: runtime(), env, cwd });
}

/** Runs `fn` with a new temporary folder, removed afterwards. */
async function inTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "homewire-aarch64-" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Resolves with the exit code, or fails after `SLOW_MS` (the process is killed). */
async function exitedWithin(main: MainProcess): Promise<number> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      main.child.kill("SIGKILL");
      reject(
        new Error(
          `Still running after ${SLOW_MS} ms; output:\n${
            [...main.stdout, ...main.stderr].join("\n")
          }`,
        ),
      );
    }, SLOW_MS);
  });
  try {
    return await Promise.race([main.exited(), late]);
  } finally {
    clearTimeout(timer);
    // Let the killed process be reaped before the test's leak check.
    await main.exited();
  }
}

Deno.test({
  name: "aarch64: the emulated Deno is our version, built for aarch64",
  ignore,
  async fn() {
    const [command, ...args] = runtime();
    const { code, stdout } = await new Deno.Command(command!, {
      args: [...args, "--version"],
      stdin: "null",
      stderr: "inherit",
    }).output();
    assert.equal(code, 0);
    assert.match(
      new TextDecoder().decode(stdout),
      new RegExp(
        `^deno ${
          Deno.version.deno.replaceAll(".", "\\.")
        } \\(.*aarch64-unknown-linux-gnu\\)$`,
        "m",
      ),
    );
  },
});

Deno.test({
  name: "aarch64: the arm64 Deno prints the help of every role",
  ignore,
  fn: () =>
    inTempDir(async (dir) => {
      const main = startPi(["--help"], dir);
      assert.equal(await exitedWithin(main), 0, main.stderr.join("\n"));
      const help = main.stdout.join("\n");
      assert.match(
        help,
        /^Usage: deno task start \[ROLE \[ARG\.\.\.\]\]\.\.\./m,
      );
      for (const role of ["collector", "reader", "messages", "notifier"]) {
        assert.match(help, new RegExp(`^  ${role}\\b`, "m"), `${role} missing`);
      }
      assert.match(help, /PRESSURE_IIO_DEVICE/);
      assert.match(help, /TSDB_BUFFER_PATH/);
    }),
});

Deno.test({
  name:
    "aarch64: reader loads noble's arm64 binding and ends with the no-adapter ERROR and 1",
  ignore: ignore || hasAdapter,
  fn: () =>
    inTempDir(async (dir) => {
      const reader = startPi(["reader", ADDRESS], dir, {
        LOG_LEVEL: "DEBUG",
        READER_TIMEOUT_MS: "60000",
      });
      const mapped = mappedWhileRunning(reader, ARM64_BINDING);
      assert.equal(await exitedWithin(reader), 1, reader.stderr.join("\n"));
      // The emulator maps the guest's shared objects into its own address space.
      assert.ok(
        await mapped,
        `${ARM64_BINDING} was never mapped; output:\n${
          reader.stderr.join("\n")
        }`,
      );
      assert.deepEqual(reader.stdout, []);
      const output = reader.stderr.join("\n");
      // "cannot load @stoprocent/noble: No native build was found ... arch=arm64" is
      // what a missing arm64 prebuild looks like.
      assert.doesNotMatch(
        output,
        /cannot load|native build|Cannot find module/i,
      );
      const errors = reader.stderr.filter((line) => line.includes("[ERROR]"));
      assert.equal(errors.length, 1, output);
      assert.match(
        errors[0]!,
        /^\d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d \[ERROR\] Cannot read the thermometer AA:BB:CC:DD:EE:FF: Bluetooth is unavailable: no Bluetooth adapter found in \/sys\/class\/bluetooth \(adapter state "unsupported"\)$/,
      );
    }),
});

/** The collector's settings for one `--once` run against `influx` into `database`. */
function collectorEnv(
  influxPort: number,
  database: string,
  weatherUrl: string,
  pressure: Record<string, string>,
): Record<string, string> {
  return {
    TSDB_HOST: "127.0.0.1",
    TSDB_PORT: String(influxPort),
    TSDB_DATABASE: database,
    WEATHER_BASE_URL: weatherUrl,
    WEATHER_API_KEY: "k3y-secret",
    WEATHER_TIMEOUT_MS: "60000",
    PRESSURE_SENSOR: "iio",
    ...pressure,
    // No Bluetooth adapter (or no such thermometer): the thermometer step fails
    // after loading noble.
    TEMPERATURE_SENSOR: ADDRESS,
    TEMPERATURE_TIMEOUT_MS: "20000",
  };
}

Deno.test({
  name:
    "aarch64: collector --once reads a fake IIO device (by name and by full path) and the weather stand-in into InfluxDB",
  ignore: ignore || influxd.ignore,
  fn: () =>
    inTempDir(async (dir) => {
      const influx = await startInfluxd(influxd.path ?? "influxd");
      const weathers = [startWeatherStandIn(), startWeatherStandIn()] as const;
      const iio = await makeFakeIio();
      try {
        await influx.query("CREATE DATABASE home");
        await influx.query("CREATE DATABASE home_path");
        const byNameDir = `${dir}/by-name`;
        const byPathDir = `${dir}/by-path`;
        await Deno.mkdir(byNameDir);
        await Deno.mkdir(byPathDir);
        // Both at once: the emulator's start-up is most of the time.
        const runs = [
          // The driver's name under PRESSURE_IIO_ROOT, the buffer in memory.
          startPi(
            ["collector", "--once"],
            byNameDir,
            {
              ...collectorEnv(influx.port, "home", weathers[0].url, {
                PRESSURE_IIO_ROOT: iio,
                PRESSURE_IIO_DEVICE: "lps25h",
              }),
              TSDB_BUFFER_PATH: ":memory:",
            },
          ),
          // The device's full path, and the default durable buffer
          // (./data/collector-buffer.sqlite3 on node:sqlite, here in the run's folder).
          startPi(
            ["collector", "--once"],
            byPathDir,
            collectorEnv(influx.port, "home_path", weathers[1].url, {
              PRESSURE_IIO_DEVICE: `${iio}/iio:device0`,
            }),
          ),
        ] as const;
        const mapped = runs.map((run) =>
          mappedWhileRunning(run, ARM64_BINDING)
        );
        const codes = await Promise.all(runs.map(exitedWithin));
        for (const [i, run] of runs.entries()) {
          const output = run.stderr.join("\n");
          assert.equal(codes[i], 0, output);
          assert.ok(await mapped[i], `${ARM64_BINDING} was never mapped`);
          assert.ok(!output.includes("k3y-secret"), output);
          assert.match(
            output,
            /\[INFO\] Pressure from IIO device iio:device0 \(lps25h\)$/m,
          );
          assert.match(
            output,
            /^\d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d \[INFO\] Write \{"time":"[^"]+Z","measurement":"home_pressure","location":"in","fields":\{"value":1013\.25\}\}$/m,
          );
          assert.match(
            output,
            /\[ERROR\] Indoor step: no temperature reading: /,
          );
          assert.doesNotMatch(output, /cannot load|native build/i);
        }
        // The durable buffer is a node:sqlite file in the run's folder, nowhere else.
        assert.ok(
          (await Deno.stat(`${byPathDir}/data/collector-buffer.sqlite3`)).size >
            0,
        );
        assert.deepEqual(await Array.fromAsync(Deno.readDir(byNameDir)), []);

        for (
          const [database, weather] of [["home", weathers[0]], [
            "home_path",
            weathers[1],
          ]] as const
        ) {
          const pressure = await influx.rows("home_pressure", database);
          assert.deepEqual(
            pressure.map((p) => [p.location, p.value]).sort(),
            [["in", 1013.25], ["out", CURRENT_REPLY.main.pressure]],
            database,
          );
          const temperature = await influx.rows("home_temperature", database);
          assert.deepEqual(
            temperature.map((p) => [p.location, p.value]),
            [["out", CURRENT_REPLY.main.temp]],
            database,
          );
          const forecast = await influx.select(
            "SELECT count(temp) FROM home_weather_forecast",
            database,
          );
          assert.equal(forecast[0]?.count, 3, database);
          assert.deepEqual(
            weather.requests.map((r) => r.path).sort(),
            ["/data/2.5/forecast", "/data/2.5/uvi", "/data/2.5/weather"],
            database,
          );
        }
      } finally {
        await Promise.all(weathers.map((weather) => weather.close()));
        await influx.stop();
        await Deno.remove(iio, { recursive: true });
      }
    }),
});

Deno.test({
  name:
    "aarch64: messages keeps its records in a node:sqlite file across a restart",
  ignore,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "homewire-aarch64-" });
    const env = {
      MESSAGES_DB: `${dir}/messages.sqlite3`,
      MESSAGES_HOST: "127.0.0.1",
      MESSAGES_PORT: "0",
      MESSAGES_TOKEN: "pi-token",
    };
    const resource = (base: string, id = "") =>
      new URL(`api/message/resource${id}`, `${base}/`);
    const auth = { Authorization: "Bearer pi-token" };
    try {
      const first = startPi(["messages"], dir, env);
      try {
        const base = await listeningUrlWithin(first, "messages");
        const created = await fetch(resource(base), {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ author: "Pi", message: "Hello from arm64" }),
        });
        assert.equal(created.status, 201);
        assert.deepEqual(await created.json(), {
          id: 1,
          author: "Pi",
          message: "Hello from arm64",
        });
        const refused = await fetch(resource(base), {
          method: "POST",
          body: JSON.stringify({ author: "Pi", message: "no token" }),
        });
        assert.equal(refused.status, 401);
        await refused.body?.cancel();
        const read = await fetch(resource(base, "/1"));
        assert.equal(read.status, 200);
        assert.deepEqual(await read.json(), {
          id: 1,
          author: "Pi",
          message: "Hello from arm64",
        });
      } finally {
        assert.equal(await first.stop("SIGTERM"), 0, first.stderr.join("\n"));
      }
      assert.ok((await Deno.stat(env.MESSAGES_DB)).size > 0);

      const second = startPi(["messages"], dir, env);
      try {
        const base = await listeningUrlWithin(second, "messages");
        const list = await fetch(resource(base));
        assert.equal(list.status, 200);
        assert.deepEqual(await list.json(), [
          { id: 1, author: "Pi", message: "Hello from arm64" },
        ]);
        const next = await fetch(resource(base), {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ author: "Pi", message: "again" }),
        });
        assert.equal(next.status, 201);
        assert.equal((await next.json()).id, 2);
      } finally {
        assert.equal(
          await second.stop("SIGTERM"),
          0,
          second.stderr.join("\n"),
        );
      }
      assert.ok(
        [...second.stderr].every((line) => !line.includes("pi-token")),
        "the token is never logged",
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "aarch64: the demo set responds to /api/table",
  ignore,
  fn: () =>
    inTempDir(async (dir) => {
      const demo = startPi([], dir, {
        MESSAGES_DB: ":memory:",
        MESSAGES_PORT: "0",
        DATA_API_PORT: "0",
        TABLE_PORT: "0",
        TABLE_OPEN_BROWSER: "false",
      });
      try {
        const banner = await demo.waitFor(/^Demo running: open /, SLOW_MS);
        const page = /open (http:\/\/127\.0\.0\.1:\d+\/) \(Ctrl-C to stop\)$/
          .exec(banner);
        assert.ok(page, `no page URL in "${banner}"`);
        const response = await fetch(new URL("api/table", page[1]));
        const body = await response.text();
        assert.equal(response.status, 200, body);
        const shown = JSON.parse(body);
        assert.equal(shown.rows.length, 20);
        assert.deepEqual([...shown.columns].sort(), ["email", "name", "phone"]);
        const html = await fetch(page[1]!);
        assert.equal(html.status, 200);
        assert.match(await html.text(), /<html/i);
      } finally {
        assert.equal(await demo.stop("SIGTERM"), 0, demo.stderr.join("\n"));
      }
    }),
});

/** noble's Bluetooth binding for arm64, as its loader picks it. */
const ARM64_BINDING =
  "/prebuilds/linux-arm64/@stoprocent+bluetooth-hci-socket.armv8.node";

/** Whether a file whose path ends in `suffix` is ever mapped into `main` while it runs. */
async function mappedWhileRunning(
  main: MainProcess,
  suffix: string,
): Promise<boolean> {
  let ended = false;
  main.exited().then(() => ended = true);
  while (!ended) {
    try {
      const maps = await Deno.readTextFile(`/proc/${main.child.pid}/maps`);
      if (maps.split("\n").some((line) => line.endsWith(suffix))) return true;
    } catch {
      // ended meanwhile
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}

/** {@linkcode listeningUrl} with the emulator's time-out. */
async function listeningUrlWithin(
  main: MainProcess,
  role: string,
): Promise<string> {
  await main.waitFor(new RegExp(`${role} listening on http://`), SLOW_MS);
  return await listeningUrl(main, role);
}
