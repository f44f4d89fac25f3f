/**
 * Where a process serves its metrics: `METRICS_PORT` (unset: no endpoint) and
 * `METRICS_HOST` (`127.0.0.1` by default: metrics are not public unless asked).
 *
 * @module
 */
import { host, port } from "../setting_kinds.ts";
import { optional } from "../settings.ts";

/**
 * The settings of the process' metrics endpoint, shared by every role it runs.
 *
 * @example
 * ```ts
 * import { parseSettings } from "../settings.ts";
 *
 * const settings = parseSettings(metricsSettings, { METRICS_PORT: "9464" });
 * settings.METRICS_HOST; // "127.0.0.1"
 * ```
 */
export const metricsSettings = {
  METRICS_HOST: host({
    description:
      "Address of the metrics endpoint (0.0.0.0 to let another machine scrape it)",
    default: "127.0.0.1",
  }),
  METRICS_PORT: optional(port({
    description:
      "Port of GET /metrics (Prometheus text or OpenMetrics), GET /readyz and GET /healthz for every role of the process (default: no endpoint)",
  })),
};
