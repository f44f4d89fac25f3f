/**
 * The forwarder's series: messages received, posted and deleted, failed and retried
 * posts, delayed redeliveries, the post-duration histogram, and the last receive
 * (its time, and whether it succeeded: the role's readiness).
 *
 * @module
 */
import {
  createRegistry,
  type MetricsRegistry,
} from "../../lib/metrics/registry.ts";

/** Counter names, as used by {@linkcode ForwarderMetrics.count}. */
export type CounterName =
  | "received"
  | "posted"
  | "deleted"
  | "failed"
  | "retried"
  | "backoffs";

/** Each counter's series name and help. */
const COUNTERS: Record<CounterName, { name: string; help: string }> = {
  received: {
    name: "homewire_forwarder_messages_received_total",
    help: "Messages received from the queue",
  },
  posted: {
    name: "homewire_forwarder_messages_posted_total",
    help:
      "Messages posted and given a status that deletes them (any outside FORWARD_RETRY_STATUSES)",
  },
  deleted: {
    name: "homewire_forwarder_messages_deleted_total",
    help: "Messages deleted from the queue",
  },
  failed: {
    name: "homewire_forwarder_post_failures_total",
    help: "Posts that raised an error (message left in the queue)",
  },
  retried: {
    name: "homewire_forwarder_post_retries_total",
    help: "Posts given a retry status (message left in the queue)",
  },
  backoffs: {
    name: "homewire_forwarder_backoffs_total",
    help:
      "Messages left for redelivery whose return was delayed (FORWARD_BACKOFF_BASE_MS or the endpoint's Retry-After)",
  },
};

/** Upper bounds of the latency buckets, in seconds. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The forwarder's metrics. */
export interface ForwarderMetrics {
  /** Adds `n` (default 1) to a counter. */
  count(name: CounterName, n?: number): void;
  /** Records the duration of one post, in milliseconds. */
  observePost(ms: number): void;
  /** The current value of a counter. */
  value(name: CounterName): number;
  /** Records a receive that succeeded (messages or none), or why it failed. */
  receive(problem?: string): void;
  /** Why the last receive failed; `undefined` when it succeeded (or none ended yet). */
  readiness(): string | undefined;
}

/**
 * Returns the forwarder's metrics, registered in `registry` (a fresh one, nobody
 * reads, by default).
 *
 * @example
 * ```ts
 * import { createRegistry } from "../../lib/metrics/registry.ts";
 *
 * const registry = createRegistry();
 * const metrics = createMetrics(registry.with({ role: "forwarder" }));
 * metrics.count("received", 10);
 * await registry.render(); // ...homewire_forwarder_messages_received_total{role="forwarder"} 10...
 * ```
 */
export function createMetrics(
  registry: MetricsRegistry = createRegistry(),
): ForwarderMetrics {
  const counters = Object.fromEntries(
    Object.entries(COUNTERS).map(([key, { name, help }]) => [
      key,
      registry.counter({ name, help }).child({}),
    ]),
  ) as Record<CounterName, { inc(n?: number): void; value(): number }>;
  const posts = registry.histogram({
    name: "homewire_forwarder_post_duration_seconds",
    help: "Duration of the POST of one message",
    buckets: BUCKETS,
  }).child({});
  const receiveFailures = registry.counter({
    name: "homewire_forwarder_receive_failures_total",
    help: "Receives from the queue that failed (retried with backoff)",
  }).child({});
  const lastReceive = registry.gauge({
    name: "homewire_forwarder_last_receive_timestamp_seconds",
    help:
      "When a receive from the queue last succeeded, in seconds since the epoch",
  }).child({});
  let problem: string | undefined;
  return {
    count(name, n = 1) {
      counters[name].inc(n);
    },
    observePost(ms) {
      posts.observe(ms / 1000);
    },
    value: (name) => counters[name].value(),
    receive(failure) {
      problem = failure;
      if (failure === undefined) lastReceive.set(Date.now() / 1000);
      else receiveFailures.inc();
    },
    readiness: () =>
      problem === undefined
        ? undefined
        : `The last receive from the queue failed: ${problem}`,
  };
}

/** The series of the forwarder, for the documentation. */
export function forwarderSeries(registry: MetricsRegistry): void {
  createMetrics(registry);
}
