/**
 * The HTTP series of a role: requests by route pattern, method and status class, and
 * their durations, counted by one middleware.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import type { MetricsRegistry } from "./registry.ts";

/** Methods counted by name; any other is counted as `other` (labels stay bounded). */
const METHODS = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "PATCH",
  "DELETE",
  "OPTIONS",
]);

/** Bucket bounds of `homewire_http_request_duration_seconds`. */
const BUCKETS = [
  0.001,
  0.0025,
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];

/**
 * Middleware counting every request in `homewire_http_requests_total{route, method,
 * status_class}` and timing it in `homewire_http_request_duration_seconds{route,
 * method}`. `route` is the pattern of the route that served it (`/api/message/:id`,
 * never the raw path, so label values stay bounded; a request no route took
 * carries the pattern of the last middleware it went through, such as `/*`),
 * `status_class` is `2xx`...`5xx`. Compose it first with `app.use`, on a registry
 * view labelled with the role.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { createRegistry } from "./registry.ts";
 *
 * const registry = createRegistry();
 * const app = new Hono();
 * app.use(httpMetrics(registry.with({ role: "hello" })));
 * app.get("/hello/:name", (c) => c.text("hello"));
 * await app.request("/hello/world");
 * await registry.render(); // ...homewire_http_requests_total{role="hello",route="/hello/:name",method="GET",status_class="2xx"} 1...
 * ```
 */
export function httpMetrics(registry: MetricsRegistry): MiddlewareHandler {
  const requests = registry.counter({
    name: "homewire_http_requests_total",
    help: "HTTP requests served, by route pattern, method and status class",
    labels: ["route", "method", "status_class"],
  });
  const durations = registry.histogram({
    name: "homewire_http_request_duration_seconds",
    help:
      "Time from a request's arrival to its response's headers, by route pattern and method",
    labels: ["route", "method"],
    buckets: BUCKETS,
  });
  const counted = new Map<string, { inc(): void }>();
  const timed = new Map<string, { observe(value: number): void }>();
  const record = (
    route: string,
    method: string,
    status: number,
    seconds: number,
  ) => {
    const known = METHODS.has(method) ? method : "other";
    const statusClass = status >= 100 && status < 600
      ? `${Math.floor(status / 100)}xx`
      : "other";
    const key = `${route}\n${known}\n${statusClass}`;
    let count = counted.get(key);
    if (!count) {
      count = requests.child({
        route,
        method: known,
        status_class: statusClass,
      });
      counted.set(key, count);
    }
    count.inc();
    const timeKey = `${route}\n${known}`;
    let time = timed.get(timeKey);
    if (!time) {
      time = durations.child({ route, method: known });
      timed.set(timeKey, time);
    }
    time.observe(seconds);
  };
  return async function httpMetricsMiddleware(c, next) {
    const started = performance.now();
    try {
      await next();
    } catch (error) {
      record(routePath(c), c.req.method, 500, elapsed(started));
      throw error;
    }
    record(routePath(c), c.req.method, c.res.status, elapsed(started));
  };
}

function elapsed(started: number): number {
  return (performance.now() - started) / 1000;
}
