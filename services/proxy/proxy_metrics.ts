/**
 * The proxy's series: upstream requests by route and outcome and their duration,
 * the response cache's hits, misses and bytes, and requests from refused origins.
 *
 * @module
 */
import type { MetricsRegistry } from "../../lib/metrics/registry.ts";

/**
 * How an upstream request ended: the status class of the upstream's response, or
 * `timeout` (504), `error` (502: unreachable, not valid HTTP), `client_timeout` (408)
 * or `client_gone` (400), which the proxy returned itself.
 */
export type UpstreamOutcome =
  | "1xx"
  | "2xx"
  | "3xx"
  | "4xx"
  | "5xx"
  | "timeout"
  | "error"
  | "client_timeout"
  | "client_gone";

/** What the response cache tells. */
export interface CacheEvents {
  /** A GET served from the cache, with `bytes` of body. */
  hit(route: string, bytes: number): void;
  /** A GET that went upstream. */
  miss(route: string): void;
  /** The bodies' bytes the cache holds now. */
  held(bytes: number): void;
}

/** What the proxy counts. */
export interface ProxyMetrics {
  /** An upstream request of `route` ended with `outcome` after `seconds` (to its headers). */
  upstream(route: string, outcome: UpstreamOutcome, seconds: number): void;
  /** The cache's events. */
  readonly cache: CacheEvents;
  /** A request from an origin `PROXY_ALLOW_ORIGIN` does not list, refused (403). */
  refusedOrigin(): void;
}

/** Bucket bounds of `homewire_proxy_upstream_duration_seconds`. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Registers the proxy's series and returns what counts in them. Routes are the
 * registered names of `PROXY_ROUTES` (a bounded set), never request paths.
 *
 * @example
 * ```ts
 * import { createRegistry } from "../../lib/metrics/registry.ts";
 *
 * const metrics = proxyMetrics(createRegistry().with({ role: "proxy" }));
 * metrics.upstream("weather", "2xx", 0.12);
 * ```
 */
export function proxyMetrics(registry: MetricsRegistry): ProxyMetrics {
  const requests = registry.counter<"route" | "outcome">({
    name: "homewire_proxy_upstream_requests_total",
    help:
      "Upstream requests by route and outcome (the upstream's status class, or timeout, error, client_timeout, client_gone)",
    labels: ["route", "outcome"],
  });
  const durations = registry.histogram<"route">({
    name: "homewire_proxy_upstream_duration_seconds",
    help: "Time from the upstream request to its response's headers, by route",
    labels: ["route"],
    buckets: BUCKETS,
  });
  const hits = registry.counter<"route">({
    name: "homewire_proxy_cache_hits_total",
    help:
      "GET requests served from the response cache (PROXY_CACHE_MS), by route",
    labels: ["route"],
  });
  const misses = registry.counter<"route">({
    name: "homewire_proxy_cache_misses_total",
    help: "GET requests the response cache sent upstream, by route",
    labels: ["route"],
  });
  const served = registry.counter<"route">({
    name: "homewire_proxy_cache_served_bytes_total",
    help: "Body bytes served from the response cache, by route",
    labels: ["route"],
  });
  const held = registry.gauge({
    name: "homewire_proxy_cache_bytes",
    help:
      "Body bytes the response cache holds (bounded by PROXY_CACHE_MAX_BYTES)",
  }).child({});
  const refused = registry.counter({
    name: "homewire_proxy_refused_origins_total",
    help:
      "Requests refused (403) because their Origin is not in PROXY_ALLOW_ORIGIN",
  }).child({});
  const counted = new Map<string, { inc(): void }>();
  const timed = new Map<string, { observe(value: number): void }>();
  return {
    upstream(route, outcome, seconds) {
      const key = `${route}\n${outcome}`;
      let count = counted.get(key);
      if (!count) {
        count = requests.child({ route, outcome });
        counted.set(key, count);
      }
      count.inc();
      let time = timed.get(route);
      if (!time) {
        time = durations.child({ route });
        timed.set(route, time);
      }
      time.observe(seconds);
    },
    cache: {
      hit(route, bytes) {
        hits.inc({ route });
        served.inc({ route }, bytes);
      },
      miss: (route) => misses.inc({ route }),
      held: (bytes) => held.set(bytes),
    },
    refusedOrigin: () => refused.inc(),
  };
}

/** The outcome of an upstream response with `status`. */
export function statusOutcome(status: number): UpstreamOutcome {
  if (status >= 100 && status < 600) {
    return `${Math.floor(status / 100)}xx` as UpstreamOutcome;
  }
  return "error";
}
