/**
 * The table's fetches of its source counted by outcome, for Prometheus.
 *
 * @module
 */
import type { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { TableFetchError } from "./table_fetch_error.ts";

/** How a fetch of the source ended. */
export type FetchOutcome =
  | "ok"
  | "error_status"
  | "invalid_body"
  | "timeout"
  | "unreachable";

/**
 * Registers `homewire_table_source_fetches_total{outcome}` and returns `load`
 * counting each call in it: `ok`, `error_status` (the API returned an HTTP error),
 * `invalid_body` (a body that is not JSON or not a table), `timeout` or
 * `unreachable`.
 *
 * @example
 * ```ts
 * import { createRegistry } from "../../lib/metrics/registry.ts";
 *
 * const load = countedSource(
 *   () => Promise.resolve({ columns: [], rows: [] }),
 *   createRegistry().with({ role: "table" }),
 * );
 * await load();
 * ```
 */
export function countedSource<T>(
  load: () => Promise<T>,
  registry: MetricsRegistry,
): () => Promise<T> {
  const fetches = registry.counter<"outcome">({
    name: "homewire_table_source_fetches_total",
    help: "Fetches of the data API (API_URL) by outcome",
    labels: ["outcome"],
  });
  return async () => {
    try {
      const table = await load();
      fetches.inc({ outcome: "ok" });
      return table;
    } catch (error) {
      fetches.inc({ outcome: outcomeOf(error) });
      throw error;
    }
  };
}

function outcomeOf(error: unknown): FetchOutcome {
  if (!(error instanceof TableFetchError)) return "invalid_body";
  if (error.status !== undefined) {
    return error.cause === undefined ? "error_status" : "invalid_body";
  }
  const cause = error.cause;
  return cause instanceof DOMException && cause.name === "TimeoutError"
    ? "timeout"
    : "unreachable";
}
