/**
 * The change-feed lines of `deno task bench messages`: 1,000 subscribers on one
 * process while a create is made every 10 ms (the time from each create's response
 * to each subscriber's event, p50 and p99), read-one requests/s with the 1,000
 * connected against none, and on PostgreSQL, creates on the first of 3 processes
 * reaching 1,000 subscribers on the third.
 *
 * Subscribers are raw TCP connections in a process of their own
 * (`_feed_subscribers.ts`), each scanning its stream's bytes for the create's
 * number; times are wall-clock, comparable across the processes. The CPU time of the
 * server, of the subscribers' process and of this one (the creates) is printed with
 * the latencies, to tell the server's cost from the bench's.
 *
 * The feed lines alone: `deno run -A bench/_messages_feed.ts [sqlite|postgres]
 * [latency] [SUBSCRIBERS]` (both databases, every line and 1,000 subscribers when
 * no word is given). `FEED_CPU_PROF=<folder>` has each server write a CPU profile
 * (`deno run --cpu-prof`) there as it stops.
 *
 * @module
 */
import {
  type BenchProcess,
  freePort,
  load,
  report,
  reportLimit,
  roleV8Args,
  spawn,
  waitForHttp,
} from "./_runner.ts";
import { findPostgresBin, startPostgres } from "../tests/_test_postgres.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const MAIN = `${ROOT}main.ts`;
const SUBSCRIBERS = new URL("_feed_subscribers.ts", import.meta.url).pathname;
const PATH = "/api/message/resource";
const CREATE_EVERY_MS = 10;

/** Options of {@linkcode runFeed}. */
export interface FeedOptions {
  /** Seconds of creates for the latency lines, and of load per read-one round. */
  seconds: number;
  /** Read-one rounds with and without subscribers (alternating). */
  rounds: number;
  /** Subscribers. @default 1000 */
  subscribers?: number;
  /** Which database's lines to measure. @default both */
  only?: "sqlite" | "postgres";
  /** Leave out the read-one lines. @default false */
  latencyOnly?: boolean;
}

/** Runs the feed lines and prints them. */
export async function runFeed(options: FeedOptions): Promise<void> {
  const subscribers = options.subscribers ?? 1000;
  const dir = await Deno.makeTempDir({ prefix: "bench-messages-feed-" });
  const started: BenchProcess[] = [];
  try {
    if (options.only !== "postgres") {
      await runSqlite(dir, options, subscribers, started);
      await Promise.all(started.splice(0).map((p) => p.stop()));
    }
    if (options.only === "sqlite") return;
    const bin = findPostgresBin();
    if (bin === undefined) {
      console.log("(feed PostgreSQL line skipped: PostgreSQL not found)");
      return;
    }
    const pg = await startPostgres(bin);
    try {
      const url = await pg.createDatabase("feed");
      const servers = [];
      for (let i = 0; i < 3; i++) servers.push(await startOurs(url, started));
      const pgLatencies = await createToEvent(
        servers[0]!,
        servers[2]!,
        dir,
        options.seconds,
        subscribers,
      );
      reportLatency(
        "messages feed PostgreSQL create on 1st to event on 3rd of 3 processes",
        pgLatencies,
        subscribers,
      );
      await Promise.all(started.splice(0).map((p) => p.stop()));
    } finally {
      await pg.stop();
    }
  } finally {
    await Promise.all(started.map((p) => p.stop()));
    await Deno.remove(dir, { recursive: true });
  }
}

/** The SQLite lines: create-to-event, then read-one with subscribers and without. */
async function runSqlite(
  dir: string,
  options: FeedOptions,
  subscribers: number,
  started: BenchProcess[],
): Promise<void> {
  const server = await startOurs(`${dir}/messages.sqlite3`, started);
  const { base } = server;
  await fetch(`${base}${PATH}`, {
    method: "POST",
    body: JSON.stringify({ author: "seed", message: "first" }),
  }).then((r) => r.body?.cancel());

  const latencies = await createToEvent(
    server,
    server,
    dir,
    options.seconds,
    subscribers,
  );
  reportLatency(
    "messages feed SQLite create-to-event",
    latencies,
    subscribers,
  );
  if (options.latencyOnly) return;

  // read-one with 1,000 idle subscribers against none, alternating rounds.
  const item = { url: `${base}${PATH}/1`, connections: 50 };
  await load({ ...item, seconds: 2 });
  let none = 0;
  let some = 0;
  for (let round = 0; round < options.rounds; round++) {
    none = Math.max(none, (await load({ ...item, ...options })).rps);
    const idle = await subscribeAll(base, subscribers, "");
    try {
      some = Math.max(some, (await load({ ...item, ...options })).rps);
    } finally {
      await idle.stop();
    }
  }
  report(
    `messages read-one rps with ${subscribers} feed subscribers vs none (target ≥ 0.9x)`,
    some,
    none,
  );
}

function reportLatency(
  name: string,
  latencies: Float64Array,
  subscribers: number,
): void {
  latencies.sort();
  const at = (q: number) =>
    latencies[
      Math.min(latencies.length - 1, Math.floor(q * latencies.length))
    ] ??
      NaN;
  console.log(
    `(${name}: ${latencies.length} events to ${subscribers} subscribers)`,
  );
  reportLimit(`${name} p50`, at(0.5), 100, " ms");
  reportLimit(`${name} p99 (target ≤ 100 ms)`, at(0.99), 100, " ms");
}

/** The CPU time process `pid` has used, user and system, in seconds. */
function cpuSeconds(pid: number): number {
  const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
  // Fields after the command name (which may hold spaces), from field 3 on.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Wall-clock time in ms, comparable across processes. */
const wallClock = () => performance.timeOrigin + performance.now();

/**
 * Subscribes 1,000 to `subscribeTo`, creates on `createOn` every 10 ms for
 * `seconds`, and returns each event's delay after its create's response, in ms
 * (0 when the event came first). Events missing after 2 s count as 2,000 ms.
 * Prints the CPU time each process took meanwhile.
 */
async function createToEvent(
  createOn: Server,
  subscribeTo: Server,
  dir: string,
  seconds: number,
  count: number,
): Promise<Float64Array> {
  const acknowledged = new Map<number, number>();
  const out = `${dir}/arrivals.f64`;
  const subscribers = await subscribeAll(subscribeTo.base, count, out);
  const pids = {
    "server": subscribeTo.process.child.pid,
    "subscribers' process": subscribers.pid,
    "creates' process": Deno.pid,
  };
  const cpuBefore = Object.values(pids).map(cpuSeconds);
  const startedAt = performance.now();
  let stopped = false;
  try {
    const creates: Promise<void>[] = [];
    const total = Math.round(seconds * 1000 / CREATE_EVERY_MS);
    const start = performance.now();
    for (let n = 0; n < total; n++) {
      const due = start + n * CREATE_EVERY_MS;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      creates.push(
        fetch(`${createOn.base}${PATH}`, {
          method: "POST",
          body: JSON.stringify({ author: "feed", message: `f${n}f` }),
        }).then(async (response) => {
          await response.body?.cancel();
          if (response.status === 201) acknowledged.set(n, wallClock());
        }),
      );
    }
    await Promise.all(creates);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const cpu = Object.values(pids).map((pid, i) =>
      cpuSeconds(pid) - cpuBefore[i]!
    );
    const wall = (performance.now() - startedAt) / 1000;
    console.log(
      `(CPU over ${wall.toFixed(1)} s: ${
        Object.keys(pids).map((name, i) => `${name} ${cpu[i]!.toFixed(1)} s`)
          .join(", ")
      })`,
    );
    const reads = await subscribers.stop();
    stopped = true;
    console.log(
      `(the subscribers read ${reads} times: ${
        (reads / count).toFixed(0)
      } each, for ${acknowledged.size} creates)`,
    );
    const records = new Float64Array((await Deno.readFile(out)).buffer);
    const latencies = new Float64Array(acknowledged.size * count).fill(2000);
    let found = 0;
    for (let i = 0; i < records.length; i += 2) {
      const acked = acknowledged.get(records[i]!);
      const arrived = records[i + 1]!;
      if (acked === undefined || arrived > acked + 2000) continue;
      if (found < latencies.length) {
        latencies[found++] = Math.max(0, arrived - acked);
      }
    }
    const missing = latencies.length - found;
    if (missing > 0) {
      console.log(`(${missing} events did not come within 2 s)`);
    }
    return latencies;
  } finally {
    if (!stopped) await subscribers.stop();
  }
}

/**
 * Opens `count` feed streams on `base` in a process of its own
 * (`_feed_subscribers.ts`), recording the events it reads to the file `out` (none
 * when empty); resolves once every stream has started. `stop()` resolves to how
 * many reads the streams took.
 */
async function subscribeAll(
  base: string,
  count: number,
  out: string,
): Promise<{ pid: number; stop(): Promise<number> }> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", SUBSCRIBERS, base, String(count), out],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const line = async () => {
    for (;;) {
      const end = text.indexOf("\n");
      if (end >= 0) {
        const found = text.slice(0, end);
        text = text.slice(end + 1);
        return found;
      }
      const { value, done } = await lines.read();
      if (done) throw new Error("The subscribers' process ended early");
      text += value;
    }
  };
  if (await line() !== "open") throw new Error("Subscribers did not open");
  const writer = child.stdin.getWriter();
  return {
    pid: child.pid,
    async stop() {
      await writer.write(new TextEncoder().encode("stop\n"));
      const done = await line();
      await writer.close().catch(() => {});
      await child.status;
      return Number(done.split(" ")[1]);
    },
  };
}

/** A `messages` process the bench started. */
interface Server {
  base: string;
  process: BenchProcess;
}

async function startOurs(
  db: string,
  started: BenchProcess[],
): Promise<Server> {
  const port = freePort();
  // FEED_CPU_PROF=<folder>: each server writes a CPU profile there as it stops.
  const profile = Deno.env.get("FEED_CPU_PROF");
  const flags = profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : [];
  const process = spawn(Deno.execPath(), [
    "run",
    "-A",
    "--unstable-cron",
    ...roleV8Args(),
    ...flags,
    MAIN,
    "messages",
  ], {
    cwd: ROOT,
    env: {
      MESSAGES_HOST: "127.0.0.1",
      MESSAGES_PORT: String(port),
      MESSAGES_DB: db,
      LOG_LEVEL: "WARNING",
    },
  });
  started.push(process);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/healthz`);
  return { base, process };
}

if (import.meta.main) {
  const only = Deno.args.find((a) => a === "sqlite" || a === "postgres");
  const count = Deno.args.find((a) => /^\d+$/.test(a));
  await runFeed({
    seconds: 10,
    rounds: 2,
    subscribers: count === undefined ? undefined : Number(count),
    only,
    latencyOnly: Deno.args.includes("latency"),
  });
}
