/**
 * `deno task bench proxy`: requests per second and p99 latency of the proxy role
 * relaying GET to a local upstream through a route that adds a query parameter and
 * a header (`PROXY_ROUTE_UP_QUERY`, `PROXY_ROUTE_UP_HEADERS`), against a direct call
 * to that upstream and against `npm:cors-anywhere` relaying to the same upstream
 * (run under Node); and of a second proxy with the response cache on
 * (`PROXY_CACHE_MS`), whose hits should cost about what a direct response costs. The
 * targets are measured in alternating rounds after a warm-up, best round of each.
 * Then, with `wrk` (`_wrk.ts` says why), the proxy against nginx on the same route
 * and upstream (`_nginx.ts`), with one worker process (the proxy has one JavaScript
 * thread) and with its default (`auto`: one per core), and the proxy with rate limits
 * on (`PROXY_RATE_LIMIT`, never reached) against off; in the same rounds, a bare
 * relay on `Deno.serve` (`_bare_relay.ts`), which shows how near to nginx the runtime
 * lets any relay come. Then what the rate limits cost in process, against three
 * more response headers (`_rate_limit_cost.ts`), and our HTTP/1.1 client against
 * undici's Pool and fetch (`_client_compare.ts`).
 *
 * @module
 */
import {
  freePort,
  type LoadResult,
  measureAlternating,
  report,
  reportLimit,
  roleV8Flags,
  spawn,
  spawnDeno,
  spawnRole,
  waitForHttp,
} from "./_runner.ts";
import { metricsOnOff } from "./_metrics_on_off.ts";
import { compareClients } from "./_client_compare.ts";
import { rateLimitCost } from "./_rate_limit_cost.ts";
import { NGINX, startNginx } from "./_nginx.ts";
import { hasWrk, wrkAlternating } from "./_wrk.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const SECONDS = 5;
const ROUNDS = 3;
const CONNECTIONS = 50;
const BODY = JSON.stringify({
  id: 1,
  author: "Ada",
  message: "A fixed response from the upstream",
});

/** Runs the comparison and prints its lines. */
export async function run(): Promise<void> {
  const upstream = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response(BODY, { headers: { "content-type": "application/json" } }),
  );
  const upstreamUrl = `http://127.0.0.1:${upstream.addr.port}`;
  const proxyPort = freePort();
  const routeEnv = {
    PROXY_ROUTES: `up=${upstreamUrl}/api`,
    PROXY_ROUTE_UP_QUERY: "appid=bench-key-0123456789",
    PROXY_ROUTE_UP_HEADERS: '{"X-Api-Key": "bench-header-key-0123456789"}',
    PROXY_HOST: "127.0.0.1",
    LOG_LEVEL: "WARNING",
  };
  const ours = spawnRole(["proxy"], {
    cwd: ROOT,
    env: { ...routeEnv, PROXY_PORT: String(proxyPort) },
  });
  const cachedPort = freePort();
  const cached = spawnRole(["proxy"], {
    cwd: ROOT,
    env: {
      ...routeEnv,
      PROXY_PORT: String(cachedPort),
      PROXY_CACHE_MS: "600000",
    },
  });
  const corsPort = freePort();
  const cors = spawn("node", [
    "-e",
    `require("cors-anywhere").createServer({ originWhitelist: [], requireHeader: [], removeHeaders: [] }).listen(${corsPort}, "127.0.0.1")`,
  ], { cwd: ROOT });
  try {
    const targets = {
      direct: `${upstreamUrl}/api/items`,
      ours: `http://127.0.0.1:${proxyPort}/up/items`,
      cors: `http://127.0.0.1:${corsPort}/${upstreamUrl}/api/items`,
      cached: `http://127.0.0.1:${cachedPort}/up/items`,
    };
    for (const url of Object.values(targets)) await waitForHttp(url);
    // Alternating rounds (ours, direct, cors, ours, ...), best of each: the machine's
    // speed drifts during a run, and a single run per target would favour one side.
    const [mine, direct, peer, hits] = await measureAlternating(
      [targets.ours, targets.direct, targets.cors, targets.cached].map((
        url,
      ) => ({ url, connections: CONNECTIONS })),
      { rounds: ROUNDS, seconds: SECONDS },
    ) as [LoadResult, LoadResult, LoadResult, LoadResult];
    console.log(
      `proxy GET (route adding a query parameter and a header), ${CONNECTIONS} connections, best of ${ROUNDS} alternating ${SECONDS} s rounds; errors: ours ${mine.errors}, cors-anywhere ${peer.errors}, direct ${direct.errors}, cached ${hits.errors}`,
    );
    report("proxy GET rps vs cors-anywhere", mine.rps, peer.rps);
    report("proxy GET rps vs direct upstream", mine.rps, direct.rps);
    report("proxy GET p99 vs cors-anywhere", mine.p99, peer.p99, " ms");
    reportLimit("proxy GET p99", mine.p99, 20, " ms");
    report("proxy cached GET rps vs direct upstream", hits.rps, direct.rps);
  } finally {
    await cors.stop();
    await cached.stop();
    await ours.stop();
  }
  await metricsOnOff({
    name: "proxy GET rps, metrics on vs off",
    args: ["proxy"],
    portSetting: "PROXY_PORT",
    env: () => routeEnv,
    request: (base) => ({
      url: `${base}/up/items`,
      connections: CONNECTIONS,
    }),
    rounds: ROUNDS,
    seconds: SECONDS,
  });
  await compareWithNginx(upstreamUrl, routeEnv);
  await upstream.shutdown();
  // What the rate limits cost without the drift of the wrk rounds.
  await rateLimitCost();
  // Why the proxy's upstream requests go through a client of our own.
  await compareClients();
}

/**
 * The proxy against nginx with one worker and with its default workers, and with
 * rate limits on against off, on the same route, upstream and load (wrk, one thread).
 */
export async function compareWithNginx(
  upstreamUrl: string,
  routeEnv: Record<string, string>,
): Promise<void> {
  let nginxFound = true;
  try {
    Deno.statSync(NGINX);
  } catch {
    nginxFound = false;
  }
  if (!nginxFound || !hasWrk()) {
    console.log(
      "proxy vs nginx: skipped, nginx or wrk not installed (bash scripts/install_deps.sh installs them)",
    );
    return;
  }
  const route = {
    name: "up",
    upstream: new URL(upstreamUrl).host,
    basePath: "/api",
    query: routeEnv.PROXY_ROUTE_UP_QUERY!,
    header: ["X-Api-Key", "bench-header-key-0123456789"] as [string, string],
  };
  const oursPort = freePort();
  const ours = spawnRole(["proxy"], {
    cwd: ROOT,
    env: { ...routeEnv, PROXY_PORT: String(oursPort) },
  });
  const limitedPort = freePort();
  const limited = spawnRole(["proxy"], {
    cwd: ROOT,
    env: {
      ...routeEnv,
      PROXY_PORT: String(limitedPort),
      // Counted on every request, never reached.
      PROXY_RATE_LIMIT: "1000000000/1h",
    },
  });
  // The floor: the same upstream call through the same client, nothing else.
  const barePort = freePort();
  const bareRelay = spawnDeno(`${ROOT}bench/_bare_relay.ts`, [], {
    cwd: ROOT,
    // The runtime as the proxy has it: only the code differs.
    v8Flags: roleV8Flags(),
    env: {
      BARE_PORT: String(barePort),
      BARE_UPSTREAM: `${upstreamUrl}/api`,
      BARE_QUERY: route.query,
      BARE_HEADER: `${route.header[0]}: ${route.header[1]}`,
    },
  });
  const onePort = freePort();
  const autoPort = freePort();
  const one = await startNginx(route, { port: onePort, workers: 1 });
  const auto = await startNginx(route, { port: autoPort, workers: "auto" });
  try {
    const urls = [oursPort, limitedPort, onePort, autoPort, barePort].map((
      port,
    ) => `http://127.0.0.1:${port}/up/items`);
    for (const url of urls) await waitForHttp(url);
    const [mine, withLimits, nginx1, nginxAuto, bare] = await wrkAlternating(
      urls.map((url) => ({ url, connections: CONNECTIONS, threads: 1 })),
      { rounds: ROUNDS, seconds: SECONDS },
    ) as [LoadResult, LoadResult, LoadResult, LoadResult, LoadResult];
    console.log(
      `proxy GET vs nginx (same route: query parameter, header, CORS, keep-alive upstream), wrk 1 thread ${CONNECTIONS} connections, best of ${ROUNDS} alternating ${SECONDS} s rounds; errors: ours ${mine.errors}, rate-limited ${withLimits.errors}, nginx 1 worker ${nginx1.errors}, nginx auto ${nginxAuto.errors}, bare relay ${bare.errors}`,
    );
    report("proxy GET rps vs nginx 1 worker", mine.rps, nginx1.rps);
    report("proxy GET p99 vs nginx 1 worker", mine.p99, nginx1.p99, " ms");
    report("proxy GET rps vs nginx default workers", mine.rps, nginxAuto.rps);
    report(
      "proxy GET p99 vs nginx default workers",
      mine.p99,
      nginxAuto.p99,
      " ms",
    );
    // How near the runtime lets a relay come to nginx, and how near the proxy is.
    report(
      "bare Deno.serve relay rps vs nginx 1 worker",
      bare.rps,
      nginx1.rps,
    );
    report(
      "bare Deno.serve relay p99 vs nginx 1 worker",
      bare.p99,
      nginx1.p99,
      " ms",
    );
    report("proxy GET rps vs bare Deno.serve relay", mine.rps, bare.rps);
    report("proxy GET rps rate limits on vs off", withLimits.rps, mine.rps);
    report(
      "proxy GET p99 rate limits on vs off",
      withLimits.p99,
      mine.p99,
      " ms",
    );
  } finally {
    await auto.stop();
    await one.stop();
    await limited.stop();
    await bareRelay.stop();
    await ours.stop();
  }
}

if (import.meta.main) await run();
