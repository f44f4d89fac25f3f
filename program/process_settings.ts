/**
 * The settings of the process rather than of one role: logging and the metrics
 * endpoint. `--help`, `docs/running.md` and `.env.example` list them under
 * "all roles".
 *
 * @module
 */
import { loggingSettings } from "../lib/logging.ts";
import { metricsSettings } from "../lib/metrics/metrics_settings.ts";

/** Every setting the process reads for all its roles. */
export const processSettings = { ...loggingSettings, ...metricsSettings };
