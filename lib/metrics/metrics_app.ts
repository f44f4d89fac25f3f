/**
 * The metrics endpoint of a process: `GET /metrics`, `GET /readyz`, `GET /healthz`.
 *
 * @module
 */
import type { Hono } from "hono";
import { createHttpApp } from "../http.ts";
import type { Log } from "../log.ts";
import { type ReadinessCheck, readyzHandler } from "../readyz.ts";
import {
  negotiateFormat,
  OPENMETRICS_CONTENT_TYPE,
  TEXT_CONTENT_TYPE,
} from "./exposition.ts";
import type { MetricsRegistry } from "./registry.ts";

/** What {@linkcode createMetricsApp} serves. */
export interface MetricsAppOptions {
  /** The process' registry. */
  registry: MetricsRegistry;
  /** Whether every role of the process is ready (`GET /readyz`). */
  ready: ReadinessCheck;
  /** Where unexpected errors are logged. */
  log: Log;
}

/**
 * Returns the metrics app: `GET /metrics` returns the registry in the Prometheus
 * text format 0.0.4, or OpenMetrics 1.0 when the scraper's `Accept` asks for it;
 * `GET /readyz` 200 or 503 `{"message": ...}`; `GET /healthz` `{"status":"ok"}`.
 *
 * @example
 * ```ts
 * import { createLog } from "../log.ts";
 * import { createRegistry } from "./registry.ts";
 *
 * const app = createMetricsApp({
 *   registry: createRegistry(),
 *   ready: () => undefined,
 *   log: createLog("metrics"),
 * });
 * (await app.request("/metrics")).headers.get("content-type"); // "text/plain; version=0.0.4; charset=utf-8"
 * ```
 */
export function createMetricsApp(options: MetricsAppOptions): Hono {
  const app = createHttpApp({ log: options.log });
  app.get("/metrics", async (c) => {
    const format = negotiateFormat(c.req.header("accept") ?? null);
    const body = await options.registry.render(format);
    return c.body(body, 200, {
      "content-type": format === "openmetrics"
        ? OPENMETRICS_CONTENT_TYPE
        : TEXT_CONTENT_TYPE,
    });
  });
  app.get("/readyz", readyzHandler(options.ready));
  return app;
}
