/**
 * `deno task bench pi-memory`: the resident memory of the Raspberry Pi roles, run as
 * the units run them (`deno run`, V8 flags in `DENO_V8_FLAGS`), with and without the
 * V8 flags that keep it down, and what those flags cost.
 *
 * - collector: started (not `--once`) on a fake IIO pressure device, a thermometer
 *   address (noble loaded; no adapter here), the weather stand-in and a stand-in
 *   store, with its default buffer file (node:sqlite) in a temporary working folder;
 *   measured idle, after its first pass, until the next one.
 * - reader: one run to its end (no adapter here: noble loaded, then the ERROR); its
 *   peak, the most it holds while it scans.
 * - notifier: measured idle after start-up, right after 2000 notes through it to a
 *   push stand-in (the wall and CPU time per note are the flags' cost on the request
 *   path), and idle again after that.
 *
 * Each line gives VmRSS and VmHWM (peak) from /proc, RssAnon (what the process owns;
 * the rest is the shared, droppable pages of the deno executable), the time to ready
 * and the CPU time used so far. The flags are passed as `DENO_V8_FLAGS`, as the
 * systemd unit does; "none" is V8's own defaults (as the units run a role),
 * "start task" the flags of `deno task start`.
 *
 * @module
 */
import { startV8Flags } from "./_runner.ts";
import { startStore } from "../services/collector/_test_store.ts";
import { startWeatherStandIn } from "../services/collector/_test_weather.ts";
import {
  listeningUrl,
  type MainProcess,
  makeFakeIio,
  startMain,
} from "../tests/_test_helpers.ts";

/** The V8 flag sets compared, by label. */
export const FLAG_SETS: Record<string, string> = {
  "none": "",
  "start task": startV8Flags(),
  "small heap": "--max-old-space-size=64,--max-semi-space-size=1",
  "single-threaded": "--single-threaded",
  "lite-mode": "--lite-mode",
  "small + lite": "--max-old-space-size=64,--max-semi-space-size=1,--lite-mode",
};
const IDLE_MS = 10_000;
const NOTES = 2000;

/** `DENO_V8_FLAGS` when there are flags: Deno refuses the variable set but empty. */
function v8Env(v8: string): Record<string, string> {
  return v8 ? { DENO_V8_FLAGS: v8 } : {};
}

interface Memory {
  rss: number;
  hwm: number;
  anon: number;
  threads: number;
  cpuSeconds: number;
}

/** VmRSS, VmHWM and RssAnon in MB, and user+system CPU seconds, of `pid`. */
async function memory(pid: number): Promise<Memory> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const mb = (field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) /
    1024;
  const stat = await Deno.readTextFile(`/proc/${pid}/stat`);
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 per second).
  const ticks = Number(fields[11]) + Number(fields[12]);
  return {
    rss: mb("VmRSS"),
    hwm: mb("VmHWM"),
    anon: mb("RssAnon"),
    threads: Number(/Threads:\s+(\d+)/.exec(status)?.[1] ?? NaN),
    cpuSeconds: ticks / 100,
  };
}

/** Samples `pid` until it ends; returns the last sample (its peak is VmHWM). */
async function lastSample(main: MainProcess): Promise<Memory> {
  let last: Memory | undefined;
  let ended = false;
  main.exited().then(() => ended = true);
  while (!ended) {
    try {
      const sample = await memory(main.child.pid);
      // A process that is ending shows its memory as 0, then none at all.
      if (!(sample.hwm > 0)) break;
      last = sample;
    } catch {
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await main.exited();
  if (!last) throw new Error("The process ended before it could be measured");
  return last;
}

function line(role: string, flags: string, m: Memory, extra: string): string {
  const f = (n: number) => n.toFixed(1).padStart(6);
  return `${role.padEnd(10)} ${flags.padEnd(16)} VmRSS ${f(m.rss)} MB, VmHWM ${
    f(m.hwm)
  } MB, RssAnon ${f(m.anon)} MB, ${
    String(m.threads).padStart(2)
  } threads, CPU ${m.cpuSeconds.toFixed(2)} s${extra}`;
}

async function collector(
  label: string,
  v8: string,
  cwd: string,
): Promise<void> {
  const store = startStore();
  const weather = startWeatherStandIn();
  const iio = await makeFakeIio();
  try {
    const started = performance.now();
    const main = startMain(["collector"], {
      cwd,
      env: {
        ...v8Env(v8),
        TSDB_HOST: "127.0.0.1",
        TSDB_PORT: String(store.port),
        WEATHER_BASE_URL: weather.url,
        WEATHER_API_KEY: "k3y",
        PRESSURE_SENSOR: "iio",
        PRESSURE_IIO_ROOT: iio,
        TEMPERATURE_SENSOR: "AA:BB:CC:DD:EE:FF",
      },
    });
    try {
      // The first pass: pressure in and the weather's 8 points out.
      const deadline = Date.now() + 60_000;
      while (store.lines().length < 9) {
        if (Date.now() > deadline) {
          throw new Error(`collector: no pass;\n${main.stderr.join("\n")}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const passMs = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      console.log(line(
        "collector",
        label,
        await memory(main.child.pid),
        `, start + first pass ${passMs.toFixed(0)} ms`,
      ));
    } finally {
      await main.stop();
    }
  } finally {
    await weather.close();
    await store.close();
    await Deno.remove(iio, { recursive: true });
  }
}

async function reader(
  label: string,
  v8: string,
  cwd: string,
): Promise<void> {
  const started = performance.now();
  const main = startMain(["reader", "AA:BB:CC:DD:EE:FF"], {
    cwd,
    env: v8Env(v8),
  });
  const last = await lastSample(main);
  console.log(line(
    "reader",
    label,
    last,
    `, run ${(performance.now() - started).toFixed(0)} ms (peak = VmHWM)`,
  ));
}

async function notifier(
  label: string,
  v8: string,
  cwd: string,
): Promise<void> {
  const push = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => Response.json({ active: true, type: "note" }),
  );
  try {
    const started = performance.now();
    const main = startMain(["notifier"], {
      cwd,
      env: {
        ...v8Env(v8),
        NOTIFIER_HOST: "127.0.0.1",
        NOTIFIER_PORT: "0",
        PUSHBULLET_TOKEN: "o.bench-token",
        PUSH_BASE_URL: `http://127.0.0.1:${push.addr.port}`,
      },
    });
    try {
      const base = await listeningUrl(main, "notifier");
      const readyMs = performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      console.log(line(
        "notifier",
        label,
        await memory(main.child.pid),
        `, ready in ${readyMs.toFixed(0)} ms (idle)`,
      ));
      const before = await memory(main.child.pid);
      const sending = performance.now();
      for (let i = 0; i < NOTES; i++) {
        const response = await fetch(`${base}/note/Door%20${i}/Opened`);
        if (response.status !== 200) {
          throw new Error(`notifier returned ${response.status}`);
        }
        await response.body?.cancel();
      }
      const perNote = (performance.now() - sending) / NOTES;
      const after = await memory(main.child.pid);
      const cpuPerNote = (after.cpuSeconds - before.cpuSeconds) * 1000 / NOTES;
      console.log(line(
        "notifier",
        label,
        after,
        `, after ${NOTES} notes: ${perNote.toFixed(2)} ms per note, ${
          cpuPerNote.toFixed(2)
        } ms CPU per note`,
      ));
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      console.log(line(
        "notifier",
        label,
        await memory(main.child.pid),
        `, idle again ${IDLE_MS / 1000} s later`,
      ));
    } finally {
      await main.stop();
    }
  } finally {
    await push.shutdown();
  }
}

/** Runs every role with every flag set, printing one line each. */
export async function run(): Promise<void> {
  console.log(
    `deno ${Deno.version.deno} on ${Deno.build.target}; flags as DENO_V8_FLAGS`,
  );
  for (const role of [collector, reader, notifier]) {
    for (const [label, v8] of Object.entries(FLAG_SETS)) {
      // The working folder takes the collector's buffer file
      // (./data/collector-buffer.sqlite3, as under the systemd unit).
      const cwd = await Deno.makeTempDir({ prefix: "homewire-bench-" });
      try {
        await role(label, v8, cwd);
      } finally {
        await Deno.remove(cwd, { recursive: true });
      }
    }
  }
}
