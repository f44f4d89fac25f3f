/**
 * How long the proxy's response cache may keep a response, from the upstream's
 * `Cache-Control` (RFC 9111 section 5.2.2, as a shared cache reads it).
 *
 * @module
 */

/** What the cache may do with one response. */
export interface Freshness {
  /** How long it may be kept from now, in ms; 0: not stored. */
  readonly keepMs: number;
  /** Whether the upstream marked it `public` (or gave `s-maxage`): shareable even for a client that sent its own `Authorization`. */
  readonly shared: boolean;
}

/**
 * Reads `Cache-Control` (`null` when absent) and `Age` (seconds the response already
 * spent in caches before the proxy): `no-store`, `private` and `no-cache` (also with
 * field names) mean not stored; `s-maxage`, or else `max-age`, less `Age`, shortens
 * `limitMs`; a malformed age means not stored.
 *
 * @example
 * ```ts
 * freshness("public, max-age=60", 0, 300_000); // { keepMs: 60000, shared: true }
 * freshness("no-store", 0, 300_000).keepMs; // 0
 * ```
 */
export function freshness(
  cacheControl: string | null,
  ageSeconds: number,
  limitMs: number,
): Freshness {
  let keepMs = limitMs;
  let shared = false;
  if (cacheControl !== null) {
    let maxAge: string | undefined;
    let sMaxAge: string | undefined;
    for (const directive of splitDirectives(cacheControl)) {
      const equals = directive.indexOf("=");
      const name = (equals < 0 ? directive : directive.slice(0, equals))
        .trim().toLowerCase();
      const value = equals < 0
        ? undefined
        : directive.slice(equals + 1).trim().replace(/^"(.*)"$/, "$1");
      if (name === "no-store" || name === "private" || name === "no-cache") {
        return { keepMs: 0, shared: false };
      }
      if (name === "public") shared = true;
      else if (name === "max-age") maxAge = value ?? "";
      else if (name === "s-maxage") {
        sMaxAge = value ?? "";
        shared = true;
      }
    }
    const given = sMaxAge ?? maxAge;
    if (given !== undefined) {
      if (!/^\d+$/.test(given)) return { keepMs: 0, shared };
      keepMs = Math.min(keepMs, (Number(given) - ageSeconds) * 1000);
    }
  }
  return { keepMs: Math.max(0, keepMs), shared };
}

/** Splits a header's directives at commas outside double quotes. */
function splitDirectives(value: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const char = value[i];
    if (char === '"') quoted = !quoted;
    else if (char === "," && !quoted) {
      parts.push(value.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(value.slice(start));
  return parts.filter((part) => part.trim() !== "");
}

/**
 * The upstream's `Age` in whole seconds (0 when absent); `undefined` when malformed.
 */
export function ageSeconds(value: string | null): number | undefined {
  if (value === null) return 0;
  const trimmed = value.trim();
  return /^\d+$/.test(trimmed) ? Number(trimmed) : undefined;
}
