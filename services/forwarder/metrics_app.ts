/**
 * The optional metrics endpoint: `GET /healthz` and `GET /metrics`.
 *
 * @module
 */
import type { Hono } from "hono";
import { headLength } from "../../lib/head_length.ts";
import { createHttpApp } from "../../lib/http.ts";
import type { Log } from "../../lib/log.ts";
import type { ForwarderMetrics } from "./metrics.ts";

/**
 * Returns the metrics app: `GET /healthz` answers `{"status":"ok"}`, `GET /metrics`
 * the Prometheus text of `metrics`.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import { createMetrics } from "./metrics.ts";
 *
 * const app = createMetricsApp({
 *   metrics: createMetrics(),
 *   log: createLog("forwarder"),
 * });
 * ```
 */
export function createMetricsApp(
  options: { metrics: ForwarderMetrics; log: Log },
): Hono {
  const app = createHttpApp({ log: options.log });
  app.use(headLength());
  app.get("/metrics", (c) =>
    c.text(options.metrics.render(), 200, {
      "Content-Type": "text/plain; version=0.0.4; charset=utf-8",
    }));
  return app;
}
