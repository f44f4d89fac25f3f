/**
 * What the proxy's rate limits cost a request, in process, where the machine's
 * drift between wrk rounds does not reach: the proxy's app (`app.fetch`, a stub
 * upstream that answers at once) with rate limits off, on (`1000000000/1h`, never
 * reached), and off with an upstream whose response carries three more headers,
 * as many as the limits add (`RateLimit-Policy`, `RateLimit`,
 * `Access-Control-Expose-Headers`). When the last costs as much as the limits,
 * their cost is the runtime's for three headers, not the counting.
 *
 * @module
 */
import { report } from "./_runner.ts";
import { createLog } from "../lib/log.ts";
import type { Http1Client } from "../lib/http1/client.ts";
import { createProxyApp } from "../services/proxy/app.ts";
import { parseRateLimit } from "../services/proxy/rate_limit.ts";
import { parseRoutes } from "../services/proxy/routes.ts";

const ROUNDS = 30;
const WARMUP_ROUNDS = 4;
const REQUESTS = 5000;
const BODY = new TextEncoder().encode(
  JSON.stringify({ id: 1, author: "Ada", message: "A fixed response" }),
);

/** A client whose every request gets the same 200 at once, with `extra` headers. */
function stubClient(extra: [string, string][]): Http1Client {
  return {
    request: () =>
      Promise.resolve({
        status: 200,
        statusText: "OK",
        headers: [
          ["content-type", "application/json"],
          ["content-length", String(BODY.length)],
          ...extra,
        ],
        body: BODY.slice(),
        decoded: false,
      }),
    serves: () => true,
    close() {},
  };
}

/** Microseconds a request over `REQUESTS` requests through `app`. */
async function round(
  app: {
    fetch: (
      request: Request,
      info: Deno.ServeHandlerInfo,
    ) => Response | Promise<Response>;
  },
  info: Deno.ServeHandlerInfo,
): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    const response = await app.fetch(
      new Request("http://127.0.0.1:8080/up/items"),
      info,
    );
    if (response.status !== 200) {
      throw new Error(`Unexpected status ${response.status}`);
    }
    await response.arrayBuffer();
  }
  return (performance.now() - started) * 1000 / REQUESTS;
}

/** Runs the three apps in alternating rounds and prints the lowest round of each. */
export async function rateLimitCost(): Promise<void> {
  const routes = parseRoutes("up=http://127.0.0.1:9/api");
  const log = createLog("proxy");
  const apps = {
    off: createProxyApp({ routes, log, http1: stubClient([]) }),
    on: createProxyApp({
      routes,
      log,
      http1: stubClient([]),
      rateLimits: { limit: parseRateLimit("1000000000/1h") },
    }),
    headers: createProxyApp({
      routes,
      log,
      http1: stubClient([
        ["x-extra-policy", '"client";q=1000000000;w=3600'],
        ["x-extra-state", '"client";r=999999000;t=3599'],
        ["x-extra-list", "ratelimit, ratelimit-policy, retry-after"],
      ]),
    }),
  };
  const info = {
    remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40000 },
  } as Deno.ServeHandlerInfo;
  const lowest = { off: Infinity, on: Infinity, headers: Infinity };
  for (let i = 0; i < ROUNDS; i++) {
    for (const name of ["off", "on", "headers"] as const) {
      const micros = await round(apps[name], info);
      if (i >= WARMUP_ROUNDS) lowest[name] = Math.min(lowest[name], micros);
    }
  }
  console.log(
    `proxy in process (app.fetch, stub upstream), lowest of ${
      ROUNDS - WARMUP_ROUNDS
    } alternating rounds of ${REQUESTS} requests: off ${
      lowest.off.toFixed(2)
    } µs, rate limits on ${lowest.on.toFixed(2)} µs, three more headers ${
      lowest.headers.toFixed(2)
    } µs a request`,
  );
  // Requests a second of one thread, so the ratios read as the wrk lines do.
  const perSecond = (micros: number) => Math.round(1_000_000 / micros);
  report(
    "proxy in process rps, rate limits on vs off",
    perSecond(lowest.on),
    perSecond(lowest.off),
  );
  report(
    "proxy in process rps, three more response headers vs off",
    perSecond(lowest.headers),
    perSecond(lowest.off),
  );
}
