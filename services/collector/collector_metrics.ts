/**
 * The collector's series: passes by outcome, the points written, buffered and
 * dropped, the time of the last write, and each sensor's latest reading; and its
 * readiness (the last pass collected points, which were written or buffered).
 *
 * @module
 */
import type { MetricsRegistry } from "../../lib/metrics/registry.ts";
import type { Sample } from "./sample.ts";
import { sensorGauges } from "./sensor_gauges.ts";
import type { TsdbWriter } from "./tsdb_writer.ts";

/** What the collector reports. */
export interface CollectorMetrics {
  /** A pass ended with `points` points handed to the writer. */
  pass(points: number): void;
  /** The points of a pass, for the sensor gauges. */
  record(samples: readonly Sample[]): void;
  /** Why the collector is not doing its work, `undefined` when it is. */
  readiness(): string | undefined;
}

/**
 * Registers the collector's series (`homewire_collector_passes_total{outcome}`,
 * `_points_written_total`, `_points_dropped_total`, `_points_buffered`,
 * `_last_write_timestamp_seconds`, and the sensor gauges), read from `writer` at
 * each scrape.
 *
 * @example
 * ```ts
 * import { createRegistry } from "../../lib/metrics/registry.ts";
 *
 * const writer = { pending: 0, dropped: 0, written: 4, lastWriteAt: Date.now() };
 * const metrics = collectorMetrics(
 *   createRegistry().with({ role: "collector" }),
 *   writer,
 * );
 * metrics.pass(4);
 * ```
 */
export function collectorMetrics(
  registry: MetricsRegistry,
  writer: Pick<TsdbWriter, "pending" | "dropped" | "written" | "lastWriteAt">,
): CollectorMetrics {
  const passes = registry.counter<"outcome">({
    name: "homewire_collector_passes_total",
    help:
      "Collector passes: collected (points handed to the writer) or empty (no source responded)",
    labels: ["outcome"],
  });
  const written = registry.counter({
    name: "homewire_collector_points_written_total",
    help: "Points the time-series store acknowledged",
  }).child({});
  const dropped = registry.counter({
    name: "homewire_collector_points_dropped_total",
    help:
      "Points dropped: refused by the store, or the oldest beyond TSDB_BUFFER_LIMIT",
  }).child({});
  const buffered = registry.gauge({
    name: "homewire_collector_points_buffered",
    help: "Points waiting to be written (TSDB_BUFFER_PATH)",
  }).child({});
  const lastWrite = registry.gauge({
    name: "homewire_collector_last_write_timestamp_seconds",
    help:
      "When the time-series store last acknowledged points, in seconds since the epoch",
  }).child({});
  const record = sensorGauges(registry);
  registry.beforeScrape(() => {
    written.inc(writer.written - written.value());
    dropped.inc(writer.dropped - dropped.value());
    buffered.set(writer.pending);
    if (writer.lastWriteAt > 0) lastWrite.set(writer.lastWriteAt / 1000);
  });
  let lastPass: number | undefined;
  return {
    pass(points) {
      lastPass = points;
      passes.inc({ outcome: points > 0 ? "collected" : "empty" });
    },
    record,
    readiness: () =>
      lastPass === 0
        ? "The last pass collected no point: no sensor or weather source responded"
        : undefined,
  };
}
