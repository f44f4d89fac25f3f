/**
 * `deno task bench soak`: each HTTP role through `main.ts` under steady load for
 * `SOAK_REQUESTS` requests (default 2,000,000): messages mixing reads and creates,
 * the proxy with cache hits, misses and uncacheable requests, the notifier sending
 * to a local stand-in target, the data API, and the table reading a stand-in data
 * API. The role's resident memory
 * and open file descriptors are read from `/proc` after 10 % of the requests and at
 * the end; the end over the 10 % mark is the ratio (target at most 1.15, and the
 * same number of descriptors give or take 5). `SOAK_REQUESTS=20000` makes a short
 * smoke run; `SOAK_ROLES=messages,proxy` runs some roles only. The roles run with the
 * V8 flags of `deno task start`; `BENCH_V8_FLAGS=--max-semi-space-size=2` runs them
 * with others instead, and `BENCH_V8_FLAGS=` (set, empty) with V8's own defaults.
 *
 * @module
 */
import {
  type BenchProcess,
  freePort,
  load,
  type LoadRequest,
  reportLimit,
  roleV8Flags,
  spawnRole,
  waitForHttp,
} from "./_runner.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const CONNECTIONS = 50;
const RSS_LIMIT = 1.15;
const FD_LIMIT = 5;
const DATA_TOKEN = "soak-token-7c21e0d4";

/** A role started for the soak: its process, base URL and request mix. */
interface SoakTarget {
  process: BenchProcess;
  url: string;
  requests: LoadRequest[];
  /** Stops what the role needed besides itself (a stand-in upstream). */
  stop?: () => Promise<void>;
}

/** Starts a role, with its data (if any) in `dir`. */
type Starter = (dir: string) => Promise<SoakTarget>;

const STARTERS: Record<string, Starter> = {
  async messages(dir) {
    const port = freePort();
    const process = spawnRole(["messages"], {
      cwd: ROOT,
      env: {
        MESSAGES_HOST: "127.0.0.1",
        MESSAGES_PORT: String(port),
        MESSAGES_DB: `${dir}/messages.sqlite3`,
        LOG_LEVEL: "WARNING",
      },
    });
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/healthz`);
    const path = "/api/message/resource";
    const created = await fetch(`${url}${path}`, {
      method: "POST",
      body: JSON.stringify({ author: "Soak", message: "The first record" }),
    });
    await created.body?.cancel();
    return {
      process,
      url,
      requests: [
        {
          method: "POST",
          path,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            author: "Soak",
            message: "Written under load",
          }),
        },
        { path: `${path}/1` },
        { path: `${path}?_sort=-id&_limit=10` },
        { path: `${path}/1` },
      ],
    };
  },

  async proxy(_dir) {
    let served = 0;
    const upstream = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () =>
        Response.json({ served: ++served, message: "From the upstream" }, {
          headers: { "cache-control": "public, max-age=60" },
        }),
    );
    const port = freePort();
    const process = spawnRole(["proxy"], {
      cwd: ROOT,
      env: {
        PROXY_HOST: "127.0.0.1",
        PROXY_PORT: String(port),
        PROXY_ROUTES: `up=http://127.0.0.1:${upstream.addr.port}/api`,
        // Entries expire every second: the 20 paths below miss again and again.
        PROXY_CACHE_MS: "1000",
        LOG_LEVEL: "WARNING",
      },
    });
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/up/items`);
    return {
      process,
      url,
      requests: [
        { path: "/up/items" },
        ...Array.from({ length: 20 }, (_, i) => ({
          path: `/up/items?page=${i + 1}`,
        })),
        // Never cached: every one goes to the upstream.
        { path: "/up/private", headers: { authorization: "Bearer soak" } },
      ],
      stop: () => upstream.shutdown(),
    };
  },

  async notifier(_dir) {
    const target = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      async (request) => {
        await request.body?.cancel();
        return new Response(null, { status: 204 });
      },
    );
    const port = freePort();
    const process = spawnRole(["notifier"], {
      cwd: ROOT,
      env: {
        NOTIFIER_HOST: "127.0.0.1",
        NOTIFIER_PORT: String(port),
        NOTIFIER_URLS: `json://127.0.0.1:${target.addr.port}/hook`,
        LOG_LEVEL: "ERROR",
      },
    });
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/healthz`);
    return {
      process,
      url,
      requests: [
        { path: "/note/Door/Opened" },
        { path: "/note/Window/Closed" },
      ],
      stop: () => target.shutdown(),
    };
  },

  async "data-api"(_dir) {
    const port = freePort();
    const process = spawnRole(["data-api"], {
      cwd: ROOT,
      env: {
        DATA_API_TOKEN: DATA_TOKEN,
        DATA_API_HOST: "127.0.0.1",
        DATA_API_PORT: String(port),
        LOG_LEVEL: "WARNING",
      },
    });
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/healthz`);
    return {
      process,
      url,
      requests: [{
        path: "/data",
        headers: { authorization: `Bearer ${DATA_TOKEN}` },
      }],
    };
  },

  async table(_dir) {
    // A stand-in data API: the table's upstream.
    const records = JSON.stringify(
      Array.from({ length: 20 }, (_, i) => ({
        phone: `+1 415-555-${1000 + i}`,
        name: `Person Number ${i}`,
        email: `person${i}@example.com`,
      })),
    );
    const dataApi = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () =>
        new Response(records, {
          headers: { "content-type": "application/json" },
        }),
    );
    const port = freePort();
    const process = spawnRole(["table"], {
      cwd: ROOT,
      env: {
        API_URL: `http://127.0.0.1:${dataApi.addr.port}/data`,
        API_KEY: DATA_TOKEN,
        TABLE_HOST: "127.0.0.1",
        TABLE_PORT: String(port),
        TABLE_OPEN_BROWSER: "false",
        LOG_LEVEL: "WARNING",
      },
    });
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/`);
    return {
      process,
      url,
      requests: [{ path: "/api/table" }, { path: "/" }, { path: "/page.js" }],
      stop: () => dataApi.shutdown(),
    };
  },
};

/** Resident memory (MB) and open descriptors of the process `pid`. */
function usage(pid: number): { rssMb: number; fds: number } {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const fds = [...Deno.readDirSync(`/proc/${pid}/fd`)].length;
  return { rssMb: rssKb / 1024, fds };
}

/** Lets the role finish what the load left (closing connections) before a reading. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 2000));

async function soak(
  name: string,
  total: number,
  dir: string,
): Promise<void> {
  const target = await STARTERS[name]!(dir);
  try {
    const pid = target.process.child.pid;
    const first = Math.max(1, Math.round(total / 10));
    const options = {
      url: target.url,
      connections: CONNECTIONS,
      requests: target.requests,
    };
    const started = performance.now();
    const warm = await load({ ...options, amount: first });
    await settle();
    const early = usage(pid);
    const rest = await load({ ...options, amount: total - first });
    await settle();
    const end = usage(pid);
    const seconds = (performance.now() - started) / 1000;
    const errors = warm.errors + rest.errors;
    console.log(
      `soak ${name}: ${total} requests in ${seconds.toFixed(0)} s (${
        Math.round(rest.rps)
      } rps, ${errors} errors); RSS ${early.rssMb.toFixed(1)} MB at 10 %, ${
        end.rssMb.toFixed(1)
      } MB at the end; open fds ${early.fds} at 10 %, ${end.fds} at the end`,
    );
    reportLimit(`soak ${name} RSS end/10%`, end.rssMb / early.rssMb, RSS_LIMIT);
    const drift = end.fds - early.fds;
    console.log(
      `soak ${name} open fds end-10%: ours ${
        drift >= 0 ? "+" : ""
      }${drift}, limit ±${FD_LIMIT}, ${
        Math.abs(drift) <= FD_LIMIT ? "within" : "OUTSIDE"
      }`,
    );
    if (errors > 0) {
      console.log(`soak ${name}: ${errors} failed requests`);
    }
  } finally {
    await target.process.stop();
    await target.stop?.();
  }
}

/** Runs the soak of every role (or those of `SOAK_ROLES`) and prints its lines. */
export async function run(): Promise<void> {
  const total = Number(Deno.env.get("SOAK_REQUESTS") ?? 2_000_000);
  if (!Number.isInteger(total) || total < 10) {
    throw new Error(
      `Invalid SOAK_REQUESTS "${
        Deno.env.get("SOAK_REQUESTS")
      }": expected a whole number of at least 10`,
    );
  }
  const names = Deno.env.get("SOAK_ROLES")?.split(",").map((n) => n.trim())
    .filter(Boolean) ?? Object.keys(STARTERS);
  for (const name of names) {
    if (!(name in STARTERS)) {
      throw new Error(
        `Unknown SOAK_ROLES role "${name}": expected ${
          Object.keys(STARTERS).join(", ")
        }`,
      );
    }
  }
  if (Deno.env.get("SOAK_V8_FLAGS") !== undefined) {
    throw new Error(
      "SOAK_V8_FLAGS is now BENCH_V8_FLAGS (set but empty: V8's own defaults)",
    );
  }
  const v8Flags = roleV8Flags();
  console.log(
    `soak: roles run with ${
      v8Flags ? `--v8-flags=${v8Flags}` : "V8's own defaults"
    }`,
  );
  const dir = await Deno.makeTempDir({ prefix: "bench-soak-" });
  try {
    for (const name of names) await soak(name, total, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await run();
