/**
 * Drives `N` distinct clients (argument 1) through the proxy's rate-limit guard, each
 * request from a trusted proxy (127.0.0.1) with its own `X-Forwarded-For` address,
 * and prints `{"before", "peak", "heapBefore", "heapAfter", "seconds",
 * "firstRemaining"}` as JSON: the resident size before and at its peak, and the
 * heap in use after a full collection before and after the run (what the guard
 * keeps), in MiB. Run by tests/proxy_rate_limit_memory_test.ts in a process of its
 * own, with `--v8-flags=--expose-gc`.
 *
 * @module
 */
import { createMemoryLog } from "../lib/_test_memory_log.ts";
import { createClientKey } from "../services/proxy/_client_address.ts";
import { createRateLimitGuard } from "../services/proxy/rate_limit_guard.ts";
import { parseRateLimit } from "../services/proxy/rate_limit.ts";
import { parseRoutes } from "../services/proxy/routes.ts";
import { parseTrustedProxies } from "../services/proxy/trusted_proxies.ts";

const clients = Number(Deno.args[0] ?? 1_000_000);

/** The address of client `i`: 10.x.y.z. */
function address(i: number): string {
  return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
}

const [route] = parseRoutes("up=http://upstream.test");
const guard = createRateLimitGuard({
  limit: parseRateLimit("100/1h"),
  clientKey: createClientKey({ trusted: parseTrustedProxies("127.0.0.1") }),
  log: createMemoryLog(),
  allowOrigin: "*",
});
const rss = () => Deno.memoryUsage().rss / 1024 / 1024;
const collect = (globalThis as { gc?: () => void }).gc ?? (() => {});
const heap = () => {
  collect();
  return Deno.memoryUsage().heapUsed / 1024 / 1024;
};
const heapBefore = heap();
const before = rss();
let peak = before;
const started = performance.now();
// What the guard reads of a request: its headers (one object, its value changed for
// each request, so the loop measures the guard rather than Headers).
const headers = new Headers();
const request = { headers } as Request;
for (let i = 0; i < clients; i++) {
  headers.set("x-forwarded-for", address(i));
  const count = guard.admit(request, "127.0.0.1", route!);
  if (count === undefined || count instanceof Response) {
    throw new Error(`Client ${i} was refused or not counted`);
  }
  if (i % 50_000 === 0) peak = Math.max(peak, rss());
}
peak = Math.max(peak, rss());
const seconds = (performance.now() - started) / 1000;
const first = guard.admit(
  { headers: new Headers({ "x-forwarded-for": address(0) }) } as Request,
  "127.0.0.1",
  route!,
);
const firstRemaining = first === undefined || first instanceof Response
  ? undefined
  : first.remaining;
const heapAfter = heap();
console.log(
  JSON.stringify({
    before,
    peak,
    heapBefore,
    heapAfter,
    seconds,
    firstRemaining,
  }),
);
