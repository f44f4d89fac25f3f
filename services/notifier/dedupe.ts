/**
 * Remembers recent messages so that a repeat within a window is sent once.
 *
 * @module
 */

/** Claims a message for sending; see {@linkcode createDedupe}. */
export interface Dedupe {
  /** True when `key` was not claimed within the window (and claims it now). */
  claim(key: string): boolean;
  /** Forgets `key` (its sending failed: a repeat may try again). */
  release(key: string): void;
}

/**
 * Returns a {@linkcode Dedupe} with a window of `windowMs` (0: every message is
 * new). Expired entries are dropped as new ones come, so memory stays bounded by
 * the messages of one window.
 *
 * @example
 * ```ts
 * const dedupe = createDedupe(60_000);
 * dedupe.claim("a"); // true
 * dedupe.claim("a"); // false
 * ```
 */
export function createDedupe(
  windowMs: number,
  now: () => number = Date.now,
): Dedupe {
  const seen = new Map<string, number>();
  return {
    claim(key) {
      if (windowMs <= 0) return true;
      const time = now();
      // Insertion order is time order: drop the expired from the front.
      for (const [old, at] of seen) {
        if (time - at < windowMs) break;
        seen.delete(old);
      }
      if (seen.has(key)) return false;
      seen.set(key, time);
      return true;
    },
    release(key) {
      seen.delete(key);
    },
  };
}
