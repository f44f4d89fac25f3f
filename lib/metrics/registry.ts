/**
 * The metrics registry of a process: counters, gauges and histograms with labels,
 * views that add labels of their own (the `role` of each role's series), hooks run
 * before each scrape, and rendering as Prometheus text or OpenMetrics.
 *
 * @module
 */
import {
  type ExpositionFormat,
  type FamilySnapshot,
  type MetricType,
  renderFamilies,
  type Sample,
} from "./exposition.ts";

/** Label values by label name. */
export type Labels<L extends string> = Readonly<Record<L, string>>;

/** What a metric is registered with. */
export interface MetricOptions<L extends string> {
  /**
   * The name: `[a-zA-Z_:][a-zA-Z0-9_:]*`, a counter's ending in `_total`, an info's
   * in `_info`, units in the name (`_seconds`, `_bytes`) as Prometheus' naming
   * guide says.
   */
  readonly name: string;
  /** One line saying what it counts or measures. */
  readonly help: string;
  /** Its label names, besides those of the registry view. @default none */
  readonly labels?: readonly L[];
}

/** What a histogram is registered with. */
export interface HistogramOptions<L extends string> extends MetricOptions<L> {
  /** Upper bounds of the buckets, ascending. @default {@linkcode DEFAULT_BUCKETS} */
  readonly buckets?: readonly number[];
}

/** Bucket bounds of a histogram of durations in seconds. */
export const DEFAULT_BUCKETS: readonly number[] = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
];

/** A counter: a value that only goes up. */
export interface Counter<L extends string = never> {
  /** Adds `n` (default 1) to the series of `labels`. */
  inc(labels: Labels<L>, n?: number): void;
  /** The series of `labels`, for a caller that adds to it often. */
  child(labels: Labels<L>): { inc(n?: number): void; value(): number };
}

/** A gauge: a value that goes up and down. */
export interface Gauge<L extends string = never> {
  /** Sets the series of `labels` to `value`. */
  set(labels: Labels<L>, value: number): void;
  /** Adds `n` (default 1; negative to subtract) to the series of `labels`. */
  inc(labels: Labels<L>, n?: number): void;
  /** The series of `labels`, for a caller that changes it often. */
  child(labels: Labels<L>): {
    set(value: number): void;
    inc(n?: number): void;
    value(): number;
  };
}

/** A histogram: observations counted into buckets, with their count and sum. */
export interface Histogram<L extends string = never> {
  /** Records `value` (seconds, bytes...) in the series of `labels`. */
  observe(labels: Labels<L>, value: number): void;
  /** The series of `labels`, for a caller that observes often. */
  child(labels: Labels<L>): { observe(value: number): void };
}

/** A registry, or a view of it that adds labels to every series registered in it. */
export interface MetricsRegistry {
  /** Registers (or finds, when registered alike) a counter. */
  counter<L extends string = never>(options: MetricOptions<L>): Counter<L>;
  /** Registers (or finds, when registered alike) a gauge. */
  gauge<L extends string = never>(options: MetricOptions<L>): Gauge<L>;
  /** Registers (or finds, when registered alike) a histogram. */
  histogram<L extends string = never>(
    options: HistogramOptions<L>,
  ): Histogram<L>;
  /**
   * Registers an info family (`name` ending in `_info`) whose one series is 1 with
   * `labels` (`homewire_build_info{version}`).
   */
  info(options: MetricOptions<never>, labels: Labels<string>): void;
  /** A view that adds `labels` (`{ role: "proxy" }`) to every series of it. */
  with(labels: Labels<string>): MetricsRegistry;
  /**
   * Runs `hook` before every scrape (a gauge read from elsewhere, the process'
   * memory); a hook that throws is skipped for that scrape.
   */
  beforeScrape(hook: () => void | Promise<void>): void;
  /** Runs the hooks, then writes every family in `format`. */
  render(format?: ExpositionFormat): Promise<string>;
  /** Every family registered: name, type, help and label names (for docs). */
  families(): FamilyDescription[];
}

/** A registered family, as {@linkcode MetricsRegistry.families} lists it. */
export interface FamilyDescription {
  /** Its name (a counter's with `_total`). */
  readonly name: string;
  /** Its type. */
  readonly type: MetricType;
  /** Its help text. */
  readonly help: string;
  /** Its label names, those of the view first. */
  readonly labels: readonly string[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

interface Family {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly labels: readonly string[];
  readonly buckets?: readonly number[];
  readonly series: Map<string, Series>;
}

interface Series {
  readonly values: readonly string[];
  value: number;
  /** A histogram's bucket counts (not cumulative), then its sum in `value`. */
  readonly counts?: number[];
  count: number;
}

/**
 * Returns an empty registry.
 *
 * @example
 * ```ts
 * const registry = createRegistry();
 * const proxy = registry.with({ role: "proxy" });
 * const calls = proxy.counter({
 *   name: "homewire_proxy_upstream_requests_total",
 *   help: "Requests sent upstream",
 *   labels: ["route", "outcome"],
 * });
 * calls.inc({ route: "weather", outcome: "response" });
 * await registry.render(); // ...homewire_proxy_upstream_requests_total{role="proxy",route="weather",outcome="response"} 1
 * ```
 */
export function createRegistry(): MetricsRegistry {
  const families = new Map<string, Family>();
  const hooks: (() => void | Promise<void>)[] = [];

  function family(
    type: MetricType,
    options: MetricOptions<string> & { buckets?: readonly number[] },
    fixed: readonly string[],
  ): Family {
    const labels = [...fixed, ...options.labels ?? []];
    if (!METRIC_NAME.test(options.name)) {
      throw new TypeError(`Invalid metric name "${options.name}"`);
    }
    if (type === "counter" && !options.name.endsWith("_total")) {
      throw new TypeError(
        `Invalid counter name "${options.name}": it must end in _total`,
      );
    }
    if (type === "info" && !options.name.endsWith("_info")) {
      throw new TypeError(
        `Invalid info name "${options.name}": it must end in _info`,
      );
    }
    for (const label of labels) {
      if (!LABEL_NAME.test(label) || label.startsWith("__") || label === "le") {
        throw new TypeError(
          `Invalid label name "${label}" of metric "${options.name}"`,
        );
      }
    }
    if (new Set(labels).size !== labels.length) {
      throw new TypeError(`Metric "${options.name}" names a label twice`);
    }
    const found = families.get(options.name);
    if (found) {
      if (found.type !== type || found.labels.join() !== labels.join()) {
        throw new TypeError(
          `Metric "${options.name}" is already registered as a ${found.type} with labels [${found.labels}]`,
        );
      }
      return found;
    }
    const buckets = type === "histogram"
      ? [...options.buckets ?? DEFAULT_BUCKETS]
      : undefined;
    if (buckets?.some((b, i) => i > 0 && b <= buckets[i - 1]!)) {
      throw new TypeError(
        `Buckets of "${options.name}" must be ascending: ${buckets}`,
      );
    }
    const made: Family = {
      name: options.name,
      help: options.help,
      type,
      labels,
      buckets,
      series: new Map(),
    };
    families.set(options.name, made);
    return made;
  }

  function seriesOf(
    family: Family,
    fixed: readonly string[],
    labels: Labels<string>,
  ): Series {
    const values = [...fixed];
    for (let i = fixed.length; i < family.labels.length; i++) {
      values.push(String(labels[family.labels[i]!] ?? ""));
    }
    const key = JSON.stringify(values);
    let series = family.series.get(key);
    if (!series) {
      series = {
        values,
        value: 0,
        count: 0,
        counts: family.buckets?.map(() => 0),
      };
      family.series.set(key, series);
    }
    return series;
  }

  function view(fixedLabels: Labels<string>): MetricsRegistry {
    const fixedNames = Object.keys(fixedLabels);
    const fixed = fixedNames.map((name) => fixedLabels[name]!);
    const registry: MetricsRegistry = {
      counter<L extends string = never>(options: MetricOptions<L>) {
        const f = family("counter", options, fixedNames);
        const child = (labels: Labels<L>) => {
          const series = seriesOf(f, fixed, labels);
          return {
            inc(n = 1) {
              series.value += n;
            },
            value: () => series.value,
          };
        };
        return {
          inc: (labels, n = 1) => {
            seriesOf(f, fixed, labels).value += n;
          },
          child,
        };
      },
      gauge<L extends string = never>(options: MetricOptions<L>) {
        const f = family("gauge", options, fixedNames);
        const child = (labels: Labels<L>) => {
          const series = seriesOf(f, fixed, labels);
          return {
            set(value: number) {
              series.value = value;
            },
            inc(n = 1) {
              series.value += n;
            },
            value: () => series.value,
          };
        };
        return {
          set: (labels, value) => {
            seriesOf(f, fixed, labels).value = value;
          },
          inc: (labels, n = 1) => {
            seriesOf(f, fixed, labels).value += n;
          },
          child,
        };
      },
      histogram<L extends string = never>(options: HistogramOptions<L>) {
        const f = family("histogram", options, fixedNames);
        const bounds = f.buckets!;
        const observe = (series: Series, value: number) => {
          let i = 0;
          while (i < bounds.length && value > bounds[i]!) i++;
          if (i < bounds.length) series.counts![i]!++;
          series.count++;
          series.value += value;
        };
        return {
          observe: (labels, value) =>
            observe(seriesOf(f, fixed, labels), value),
          child(labels) {
            const series = seriesOf(f, fixed, labels);
            return { observe: (value: number) => observe(series, value) };
          },
        };
      },
      info(options, labels) {
        const f = family("info", {
          ...options,
          labels: Object.keys(labels),
        }, fixedNames);
        seriesOf(f, fixed, labels).value = 1;
      },
      with(labels) {
        return view({ ...fixedLabels, ...labels });
      },
      beforeScrape(hook) {
        hooks.push(hook);
      },
      async render(format = "text") {
        await Promise.all(hooks.map(async (hook) => {
          try {
            await hook();
          } catch {
            // the series it feeds keep their last values
          }
        }));
        return renderFamilies([...families.values()].map(snapshot), format);
      },
      families() {
        return [...families.values()].map((f) => ({
          name: f.name,
          type: f.type,
          help: f.help,
          labels: f.labels,
        }));
      },
    };
    return registry;
  }

  return view({});
}

/** A family's samples, in the order they were first used. */
function snapshot(family: Family): FamilySnapshot {
  const samples: Sample[] = [];
  const names = family.labels;
  for (const series of family.series.values()) {
    if (family.type === "histogram") {
      const withLe = [...names, "le"];
      let cumulative = 0;
      family.buckets!.forEach((bound, i) => {
        cumulative += series.counts![i]!;
        samples.push({
          suffix: "_bucket",
          names: withLe,
          values: [...series.values, bucketBound(bound)],
          value: cumulative,
        });
      });
      samples.push(
        {
          suffix: "_bucket",
          names: withLe,
          values: [...series.values, "+Inf"],
          value: series.count,
        },
        { suffix: "_sum", names, values: series.values, value: series.value },
        {
          suffix: "_count",
          names,
          values: series.values,
          value: series.count,
        },
      );
    } else {
      const suffix = family.type === "counter"
        ? "_total"
        : family.type === "info"
        ? "_info"
        : "";
      samples.push({
        suffix,
        names,
        values: series.values,
        value: series.value,
      });
    }
  }
  return {
    name: family.name,
    help: family.help,
    type: family.type,
    samples,
  };
}

/** A bucket bound as `le` says it: `1.0`, `0.25` (a float, as client libraries write). */
function bucketBound(bound: number): string {
  return Number.isInteger(bound) ? bound.toFixed(1) : String(bound);
}
