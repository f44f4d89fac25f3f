/**
 * The `FORWARD_RETRY_STATUSES` setting: HTTP statuses and ranges such as `429,500-599`.
 *
 * @module
 */
import {
  custom,
  type Setting,
  type SettingOptions,
} from "../../lib/settings.ts";

/**
 * Parses a comma-separated list of HTTP statuses (100 to 599) and inclusive ranges.
 *
 * @throws {Error} naming the first item that is not a status or a range.
 * @example
 * ```ts
 * parseStatusList("429,500-503"); // Set {429, 500, 501, 502, 503}
 * ```
 */
export function parseStatusList(raw: string): ReadonlySet<number> {
  const statuses = new Set<number>();
  for (const item of raw.split(",").map((part) => part.trim())) {
    if (item === "") continue;
    const match = /^(\d{3})(?:\s*-\s*(\d{3}))?$/.exec(item);
    const low = Number(match?.[1]);
    const high = Number(match?.[2] ?? match?.[1]);
    if (!match || low < 100 || high > 599 || low > high) {
      throw new Error(
        `expected HTTP statuses (100 to 599) or ranges such as 500-599, separated by commas: "${item}" is neither`,
      );
    }
    for (let status = low; status <= high; status++) statuses.add(status);
  }
  return statuses;
}

/**
 * A setting holding a set of HTTP statuses written as `429,500-599`; unset reads as the
 * default.
 */
export function statusList(
  options: SettingOptions<ReadonlySet<number>>,
): Setting<ReadonlySet<number>> {
  return custom(
    { ...options, default: options.default ?? new Set<number>() },
    parseStatusList,
    (statuses) => statuses.size === 0 ? "none" : [...statuses].join(","),
  );
}
