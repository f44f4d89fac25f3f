/**
 * The values of the secret settings a run was given, for the log to mask.
 *
 * @module
 */
import type { Schema } from "../lib/settings.ts";

/**
 * The values in `env` of the settings of `schemas` declared secret, each as it is
 * and, for a list (several lines or words), item by item; empty values are left out.
 *
 * @example
 * ```ts
 * import { secret, text } from "../lib/setting_kinds.ts";
 *
 * secretValues([{ A: secret({ description: "a" }), B: text({ description: "b" }) }], {
 *   A: "s3cret",
 *   B: "shown",
 * }); // ["s3cret"]
 * ```
 */
export function secretValues(
  schemas: readonly Schema[],
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const values = new Set<string>();
  for (const schema of schemas) {
    for (const [name, setting] of Object.entries(schema)) {
      const value = env[name]?.trim();
      if (!setting.secret || !value) continue;
      values.add(value);
      for (const item of value.split(/\s+/)) if (item) values.add(item);
    }
  }
  // Longest first: a value containing another is masked whole.
  return [...values].sort((a, b) => b.length - a.length);
}
