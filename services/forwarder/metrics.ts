/**
 * The forwarder's counters and post-latency histogram, rendered as Prometheus text.
 *
 * @module
 */

/** Counter names, as used by {@linkcode ForwarderMetrics.count}. */
export type CounterName =
  | "received"
  | "posted"
  | "deleted"
  | "failed"
  | "retried"
  | "backoffs";

const HELP: Record<CounterName, string> = {
  received: "Messages received from the queue",
  posted:
    "Messages posted and answered with a status that deletes them (any outside FORWARD_RETRY_STATUSES)",
  deleted: "Messages deleted from the queue",
  failed: "Posts that raised an error (message left in the queue)",
  retried: "Posts answered with a retry status (message left in the queue)",
  backoffs:
    "Messages left for redelivery whose return was delayed (FORWARD_BACKOFF_BASE_MS or the endpoint's Retry-After)",
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
  /** Everything in the Prometheus text exposition format. */
  render(): string;
}

/**
 * Returns fresh metrics, all zero.
 *
 * @example
 * ```ts
 * const metrics = createMetrics();
 * metrics.count("received", 10);
 * metrics.render(); // "# HELP forwarder_received_total ..."
 * ```
 */
export function createMetrics(): ForwarderMetrics {
  const counters: Record<CounterName, number> = {
    received: 0,
    posted: 0,
    deleted: 0,
    failed: 0,
    retried: 0,
    backoffs: 0,
  };
  const buckets = BUCKETS.map(() => 0);
  let count = 0;
  let sum = 0;
  return {
    count(name, n = 1) {
      counters[name] += n;
    },
    observePost(ms) {
      const seconds = ms / 1000;
      count++;
      sum += seconds;
      BUCKETS.forEach((bound, i) => {
        if (seconds <= bound) buckets[i]!++;
      });
    },
    value: (name) => counters[name],
    render() {
      const lines: string[] = [];
      for (const name of Object.keys(counters) as CounterName[]) {
        lines.push(
          `# HELP forwarder_${name}_total ${HELP[name]}`,
          `# TYPE forwarder_${name}_total counter`,
          `forwarder_${name}_total ${counters[name]}`,
        );
      }
      const metric = "forwarder_post_duration_seconds";
      lines.push(
        `# HELP ${metric} Duration of the POST of one message`,
        `# TYPE ${metric} histogram`,
        ...BUCKETS.map((bound, i) =>
          `${metric}_bucket{le="${bound}"} ${buckets[i]}`
        ),
        `${metric}_bucket{le="+Inf"} ${count}`,
        `${metric}_sum ${sum}`,
        `${metric}_count ${count}`,
      );
      return lines.join("\n") + "\n";
    },
  };
}
