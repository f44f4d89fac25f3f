/**
 * Rendering metric families as the Prometheus text format 0.0.4 or OpenMetrics 1.0:
 * names, escaping of help texts and label values, sample values.
 *
 * @module
 */

/** The formats {@linkcode renderFamilies} writes. */
export type ExpositionFormat = "text" | "openmetrics";

/** Content type of the Prometheus text format 0.0.4. */
export const TEXT_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
/** Content type of OpenMetrics 1.0. */
export const OPENMETRICS_CONTENT_TYPE =
  "application/openmetrics-text; version=1.0.0; charset=utf-8";

/** What a family is, as the `# TYPE` line says. */
export type MetricType = "counter" | "gauge" | "histogram" | "info";

/** One sample line: a name suffix (`_bucket`...), its labels and its value. */
export interface Sample {
  /** Appended to the family's name (`_total`, `_bucket`, `_sum`...). */
  readonly suffix: string;
  /** Label names, in order. */
  readonly names: readonly string[];
  /** Label values, in the order of `names`. */
  readonly values: readonly string[];
  /** The value. */
  readonly value: number;
}

/** A family ready to be written: its name as registered, help, type and samples. */
export interface FamilySnapshot {
  /**
   * The name as registered: a counter's ends in `_total`, an info's in `_info`; the
   * OpenMetrics family name drops that suffix.
   */
  readonly name: string;
  /** One line of help. */
  readonly help: string;
  /** The family's type. */
  readonly type: MetricType;
  /** Its samples, the suffix relative to the OpenMetrics family name. */
  readonly samples: readonly Sample[];
}

/**
 * Writes families in `format`. Counters are registered with their `_total` name and
 * info families with their `_info` name: the 0.0.4 text writes a counter's and an
 * info's samples under that name (an info as a gauge), OpenMetrics names the family
 * without the suffix. OpenMetrics ends with `# EOF`.
 *
 * @example
 * ```ts
 * const text = renderFamilies([{
 *   name: "jobs_total",
 *   help: "Jobs done",
 *   type: "counter",
 *   samples: [{ suffix: "_total", names: ["kind"], values: ['say "hi"'], value: 2 }],
 * }], "text");
 * // # HELP jobs_total Jobs done
 * // # TYPE jobs_total counter
 * // jobs_total{kind="say \"hi\""} 2
 * ```
 */
export function renderFamilies(
  families: readonly FamilySnapshot[],
  format: ExpositionFormat,
): string {
  const lines: string[] = [];
  const open = format === "openmetrics";
  for (const family of families) {
    const base = familyBase(family);
    const name = open ? base : family.name;
    const type = !open && family.type === "info" ? "gauge" : family.type;
    lines.push(
      `# HELP ${name} ${escapeHelp(family.help, open)}`,
      `# TYPE ${name} ${type}`,
    );
    for (const sample of family.samples) {
      lines.push(
        `${base}${sample.suffix}${labelText(sample.names, sample.values)} ${
          formatValue(sample.value)
        }`,
      );
    }
  }
  if (open) lines.push("# EOF");
  return lines.join("\n") + "\n";
}

/** The family's name without the suffix its samples add (`_total`, `_info`). */
export function familyBase(family: Pick<FamilySnapshot, "name" | "type">) {
  if (family.type === "counter") return family.name.replace(/_total$/, "");
  if (family.type === "info") return family.name.replace(/_info$/, "");
  return family.name;
}

/**
 * A label set as written after a metric name: `{a="x",b="y"}`, nothing when empty;
 * backslash, double quote and newline escaped.
 *
 * @example
 * ```ts
 * labelText(["path"], ['/a"b\nc']); // '{path="/a\\"b\\nc"}'
 * ```
 */
export function labelText(
  names: readonly string[],
  values: readonly string[],
): string {
  if (names.length === 0) return "";
  let text = "{";
  for (let i = 0; i < names.length; i++) {
    if (i > 0) text += ",";
    text += `${names[i]}="${escapeLabelValue(values[i] ?? "")}"`;
  }
  return text + "}";
}

/** A label value with `\`, `"` and newlines escaped. */
export function escapeLabelValue(value: string): string {
  return NEEDS_ESCAPE.test(value)
    ? value.replace(/[\\"\n]/g, (c) => ESCAPES[c]!)
    : value;
}

const NEEDS_ESCAPE = /[\\"\n]/;
const ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  '"': '\\"',
  "\n": "\\n",
};

/** A help text on one line: `\` and newlines escaped (and `"` in OpenMetrics). */
function escapeHelp(help: string, open: boolean): string {
  return help.replace(open ? /[\\"\n]/g : /[\\\n]/g, (c) => ESCAPES[c]!);
}

/**
 * A sample value as both formats write it: `NaN`, `+Inf`, `-Inf`, or the number.
 *
 * @example
 * ```ts
 * formatValue(Infinity); // "+Inf"
 * formatValue(0.25); // "0.25"
 * ```
 */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

/**
 * The format a scraper's `Accept` header asks for: OpenMetrics when it accepts
 * `application/openmetrics-text` (version 1.0.0 or none) at least as much as the
 * text format, the text format otherwise.
 *
 * @example
 * ```ts
 * negotiateFormat("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"); // "openmetrics"
 * negotiateFormat("text/plain"); // "text"
 * negotiateFormat(null); // "text"
 * ```
 */
export function negotiateFormat(accept: string | null): ExpositionFormat {
  if (!accept) return "text";
  let open = 0;
  let text = 0;
  for (const part of accept.split(",")) {
    const [type = "", ...parameters] = part.split(";").map((s) =>
      s.trim().toLowerCase()
    );
    let q = 1;
    let version: string | undefined;
    for (const parameter of parameters) {
      const [key, value = ""] = parameter.split("=").map((s) => s.trim());
      if (key === "q") q = Number(value) || 0;
      if (key === "version") version = value;
    }
    if (type === "application/openmetrics-text") {
      if (version === undefined || version === "1.0.0") {
        open = Math.max(open, q);
      }
    } else if (type === "text/plain" || type === "*/*" || type === "text/*") {
      text = Math.max(text, q);
    }
  }
  return open > 0 && open >= text ? "openmetrics" : "text";
}
