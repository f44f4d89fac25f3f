/**
 * The notifier's series: notes by target scheme and outcome, retried requests, and
 * notes not sent again within the de-duplication window.
 *
 * @module
 */
import type { MetricsRegistry } from "../../lib/metrics/registry.ts";

/** What the notifier counts. */
export interface NotifierMetrics {
  /** A note delivered to a target of `scheme`, or not. */
  note(scheme: string, outcome: "sent" | "failed"): void;
  /** A request to a target of `scheme` tried again (connection error, 429, 5xx). */
  retry(scheme: string): void;
  /** A note not sent again to `n` targets: the same note went out within the window. */
  deduplicated(n: number): void;
}

/**
 * Registers `homewire_notifier_notes_total{scheme, outcome}`,
 * `homewire_notifier_retries_total{scheme}` and
 * `homewire_notifier_deduplicated_total`, and returns what counts in them.
 *
 * @example
 * ```ts
 * import { createRegistry } from "../../lib/metrics/registry.ts";
 *
 * const metrics = notifierMetrics(createRegistry().with({ role: "notifier" }));
 * metrics.note("ntfy", "sent");
 * ```
 */
export function notifierMetrics(registry: MetricsRegistry): NotifierMetrics {
  const notes = registry.counter<"scheme" | "outcome">({
    name: "homewire_notifier_notes_total",
    help:
      "Notes delivered (sent) or not (failed) to a target, by the target URL's scheme",
    labels: ["scheme", "outcome"],
  });
  const retries = registry.counter<"scheme">({
    name: "homewire_notifier_retries_total",
    help:
      "Requests to a target tried again after a connection error, 429 or 5xx, by scheme",
    labels: ["scheme"],
  });
  const deduplicated = registry.counter({
    name: "homewire_notifier_deduplicated_total",
    help:
      "Notes not sent again to a target: the same note reached it within NOTIFIER_DEDUPE_MS",
  });
  return {
    note: (scheme, outcome) => notes.inc({ scheme, outcome }),
    retry: (scheme) => retries.inc({ scheme }),
    deduplicated: (n) => deduplicated.inc({}, n),
  };
}
