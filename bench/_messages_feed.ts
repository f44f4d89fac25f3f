/**
 * The change-feed lines of `deno task bench messages`: 1,000 subscribers on one
 * process while a create is made every 10 ms (the time from each create's response
 * to each subscriber's event, p50 and p99), read-one requests/s with the 1,000
 * connected against none, and on PostgreSQL, creates on the first of 3 processes
 * reaching 1,000 subscribers on the third.
 *
 * Subscribers are raw TCP connections in this process, each scanning its stream for
 * the create's number, so the bench's own parsing stays small.
 *
 * @module
 */
import {
  type BenchProcess,
  freePort,
  load,
  report,
  reportLimit,
  spawnDeno,
  waitForHttp,
} from "./_runner.ts";
import { findPostgresBin, startPostgres } from "../tests/_test_postgres.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const MAIN = `${ROOT}main.ts`;
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
}

/** Runs the feed lines and prints them. */
export async function runFeed(options: FeedOptions): Promise<void> {
  const subscribers = options.subscribers ?? 1000;
  const dir = await Deno.makeTempDir({ prefix: "bench-messages-feed-" });
  const started: BenchProcess[] = [];
  try {
    const base = await startOurs(`${dir}/messages.sqlite3`, started);
    await fetch(`${base}${PATH}`, {
      method: "POST",
      body: JSON.stringify({ author: "seed", message: "first" }),
    }).then((r) => r.body?.cancel());

    const latencies = await createToEvent(
      base,
      base,
      options.seconds,
      subscribers,
    );
    reportLatency(
      "messages feed SQLite create-to-event",
      latencies,
      subscribers,
    );

    // read-one with 1,000 idle subscribers against none, alternating rounds.
    const item = { url: `${base}${PATH}/1`, connections: 50 };
    await load({ ...item, seconds: 2 });
    let none = 0;
    let some = 0;
    for (let round = 0; round < options.rounds; round++) {
      none = Math.max(none, (await load({ ...item, ...options })).rps);
      const idle = await subscribeAll(base, subscribers, () => {});
      try {
        some = Math.max(some, (await load({ ...item, ...options })).rps);
      } finally {
        idle.close();
      }
    }
    report(
      `messages read-one rps with ${subscribers} feed subscribers vs none (target ≥ 0.9x)`,
      some,
      none,
    );
    await Promise.all(started.splice(0).map((p) => p.stop()));

    const bin = findPostgresBin();
    if (bin === undefined) {
      console.log("(feed PostgreSQL line skipped: PostgreSQL not found)");
      return;
    }
    const pg = await startPostgres(bin);
    try {
      const url = await pg.createDatabase("feed");
      const bases = [];
      for (let i = 0; i < 3; i++) bases.push(await startOurs(url, started));
      const pgLatencies = await createToEvent(
        bases[0]!,
        bases[2]!,
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

function reportLatency(
  name: string,
  latencies: number[],
  subscribers: number,
): void {
  latencies.sort((a, b) => a - b);
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

/**
 * Subscribes 1,000 to `subscribeTo`, creates on `createOn` every 10 ms for
 * `seconds`, and returns each event's delay after its create's response, in ms
 * (0 when the event came first). Events missing after 2 s count as 2,000 ms.
 */
async function createToEvent(
  createOn: string,
  subscribeTo: string,
  seconds: number,
  count: number,
): Promise<number[]> {
  const acknowledged = new Map<number, number>();
  const arrivals: [number, number][] = [];
  const subscribers = await subscribeAll(
    subscribeTo,
    count,
    (n) => arrivals.push([n, performance.now()]),
  );
  try {
    const creates: Promise<void>[] = [];
    const total = Math.round(seconds * 1000 / CREATE_EVERY_MS);
    const start = performance.now();
    for (let n = 0; n < total; n++) {
      const due = start + n * CREATE_EVERY_MS;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      creates.push(
        fetch(`${createOn}${PATH}`, {
          method: "POST",
          body: JSON.stringify({ author: "feed", message: `f${n}f` }),
        }).then(async (response) => {
          await response.body?.cancel();
          if (response.status === 201) acknowledged.set(n, performance.now());
        }),
      );
    }
    await Promise.all(creates);
    const deadline = performance.now() + 2000;
    while (
      arrivals.length < acknowledged.size * count &&
      performance.now() < deadline
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const latencies = arrivals.flatMap(([n, at]) => {
      const acked = acknowledged.get(n);
      return acked === undefined ? [] : [Math.max(0, at - acked)];
    });
    const missing = acknowledged.size * count - latencies.length;
    if (missing > 0) console.log(`(${missing} events did not come within 2 s)`);
    for (let i = 0; i < missing; i++) latencies.push(2000);
    return latencies;
  } finally {
    subscribers.close();
  }
}

/**
 * Opens `count` feed streams on `base` over raw HTTP/1.1 connections, each calling
 * `onEvent(n)` for every event of a record whose message is `f<n>f`; resolves once
 * every stream has started.
 */
async function subscribeAll(
  base: string,
  count: number,
  onEvent: (n: number) => void,
): Promise<{ close(): void }> {
  const { hostname, port } = new URL(base);
  const connections: Deno.TcpConn[] = [];
  const request = new TextEncoder().encode(
    `GET ${PATH}/events HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`,
  );
  const opened: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const conn = await Deno.connect({ hostname, port: Number(port) });
    connections.push(conn);
    await conn.write(request);
    let markOpen: () => void;
    opened.push(new Promise((resolve) => markOpen = resolve));
    (async () => {
      const decoder = new TextDecoder();
      const buffer = new Uint8Array(64 * 1024);
      let tail = "";
      let open = false;
      try {
        for (;;) {
          const read = await conn.read(buffer);
          if (read === null) break;
          const text = tail + decoder.decode(buffer.subarray(0, read), {
            stream: true,
          });
          // Only whole lines are scanned; the rest waits for the next read.
          const cut = text.lastIndexOf("\n") + 1;
          const lines = text.slice(0, cut);
          tail = text.slice(cut);
          if (!open && lines.includes("\nid: ")) {
            open = true;
            markOpen!();
          }
          for (const match of lines.matchAll(/"message":"f(\d+)f"/g)) {
            onEvent(Number(match[1]));
          }
        }
      } catch {
        // closed
      } finally {
        markOpen!();
      }
    })();
  }
  await Promise.all(opened);
  return {
    close() {
      for (const conn of connections) {
        try {
          conn.close();
        } catch {
          // already closed
        }
      }
    },
  };
}

async function startOurs(db: string, started: BenchProcess[]) {
  const port = freePort();
  started.push(spawnDeno(MAIN, ["messages"], {
    cwd: ROOT,
    env: {
      MESSAGES_HOST: "127.0.0.1",
      MESSAGES_PORT: String(port),
      MESSAGES_DB: db,
      LOG_LEVEL: "WARNING",
    },
  }));
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/healthz`);
  return base;
}
