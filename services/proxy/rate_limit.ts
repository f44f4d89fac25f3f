/**
 * Rate limits as written in the settings: `60/1m`, `5/1s` (requests per window), or
 * `off` where a route is exempt from the limit of every route.
 *
 * @module
 */
import { custom, type Setting } from "../../lib/settings.ts";

/** A number of requests allowed per window. */
export interface RateLimit {
  /** Requests allowed in one window. */
  readonly limit: number;
  /** Length of the window in ms. */
  readonly windowMs: number;
  /** The limit as written in the settings, normalised (`60/1m`). */
  readonly text: string;
}

const UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** The longest window: a day. */
const MAX_WINDOW_MS = 86_400_000;

const FORM = /^(\d+)\s*\/\s*(\d+(?:\.\d+)?)?\s*(ms|s|m|h|d)$/;

/** What a rate limit looks like, for messages. */
export const RATE_LIMIT_FORM =
  "requests/window such as 60/1m or 5/1s (window units ms, s, m, h or d, a day at most)";

/**
 * Reads `N/WINDOW` (`60/1m`, `5/1s`, `1000/1h`; `60/m` is `60/1m`). Throws an `Error`
 * saying what it expected.
 *
 * @example
 * ```ts
 * parseRateLimit("60/1m"); // { limit: 60, windowMs: 60000, text: "60/1m" }
 * ```
 */
export function parseRateLimit(raw: string): RateLimit {
  const match = FORM.exec(raw.trim());
  const limit = Number(match?.[1]);
  const windowMs = Math.round(
    Number(match?.[2] ?? 1) * UNITS[match?.[3] ?? ""]!,
  );
  if (
    match === null || !Number.isSafeInteger(limit) || limit < 1 ||
    !(windowMs >= 1 && windowMs <= MAX_WINDOW_MS)
  ) {
    throw new Error(`expected ${RATE_LIMIT_FORM}`);
  }
  return Object.freeze({
    limit,
    windowMs,
    text: `${limit}/${match[2] ?? 1}${match[3]}`,
  });
}

/**
 * Reads a route's own limit: a limit as {@linkcode parseRateLimit} reads it, or `off`
 * (`null`) for none.
 *
 * @example
 * ```ts
 * parseRouteRateLimit("off"); // null
 * ```
 */
export function parseRouteRateLimit(raw: string): RateLimit | null {
  if (raw.trim().toLowerCase() === "off") return null;
  try {
    return parseRateLimit(raw);
  } catch {
    throw new Error(`expected off or ${RATE_LIMIT_FORM}`);
  }
}

/**
 * An optional rate limit setting: unset or `off` is no limit.
 *
 * @example
 * ```ts
 * const schema = { PROXY_RATE_LIMIT: rateLimit({ description: "Requests per client" }) };
 * ```
 */
export function rateLimit(
  options: { description: string },
): Setting<RateLimit | undefined> {
  const read = (raw: string) => parseRouteRateLimit(raw) ?? undefined;
  return {
    ...custom<RateLimit | undefined>(
      { description: options.description },
      read,
    ),
    required: false,
    defaultText: "off",
    read: (raw) => raw === undefined ? undefined : read(raw),
  };
}
