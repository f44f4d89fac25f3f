/**
 * A bounded table of fixed rate-limit windows, one per key (a client, or a route's
 * upstream): the oldest window is dropped first when the table is full, so memory
 * stays bounded however many distinct clients come.
 *
 * @module
 */
import type { RateLimit } from "./rate_limit.ts";

/** What a request counted against a window learns. */
export interface RateCount {
  /** Whether the request is within the limit. */
  readonly allowed: boolean;
  /** Requests left in the window after this one. */
  readonly remaining: number;
  /** Seconds until the window ends (at least 1). */
  readonly resetSeconds: number;
  /** Whether this is the window's first refusal (the one worth a log line). */
  readonly firstRefusal: boolean;
}

/** The windows of one limit. */
export interface RateWindows {
  /** Counts a request of `key`. */
  take(key: string): RateCount;
  /** The state of `key`'s window, without counting a request. */
  peek(key: string): RateCount;
  /** How many windows are kept. */
  readonly size: number;
}

/** Options of {@linkcode createRateWindows}. */
export interface RateWindowsOptions {
  /** Most windows kept; the oldest goes first past it. @default 100000 */
  maxKeys?: number;
  /** The clock. @default Date.now */
  now?: () => number;
}

/** One key's window: when it began, requests counted, whether a refusal was logged. */
interface Window {
  start: number;
  count: number;
  warned: boolean;
}

/**
 * Returns the windows of `limit`: a key's window begins with its first request and
 * lasts `limit.windowMs`; within it, `limit.limit` requests are allowed.
 *
 * @example
 * ```ts
 * import { parseRateLimit } from "./rate_limit.ts";
 *
 * const windows = createRateWindows(parseRateLimit("2/1s"));
 * windows.take("10.0.0.1").allowed; // true
 * windows.take("10.0.0.1").allowed; // true
 * windows.take("10.0.0.1").allowed; // false
 * ```
 */
export function createRateWindows(
  limit: RateLimit,
  options: RateWindowsOptions = {},
): RateWindows {
  const maxKeys = options.maxKeys ?? 100_000;
  const now = options.now ?? Date.now;
  const { windowMs } = limit;
  // In the order the windows began (a new window is moved to the end), so the first
  // one is the oldest, and the first to end.
  const windows = new Map<string, Window>();
  const count = (window: Window, time: number, took: boolean): RateCount => {
    const allowed = window.count <= limit.limit;
    const firstRefusal = took && !allowed && !window.warned;
    if (firstRefusal) window.warned = true;
    return {
      allowed: took ? allowed : window.count < limit.limit,
      remaining: Math.max(0, limit.limit - window.count),
      resetSeconds: Math.max(
        1,
        Math.ceil((window.start + windowMs - time) / 1000),
      ),
      firstRefusal,
    };
  };
  const current = (key: string, time: number): Window | undefined => {
    const window = windows.get(key);
    if (window === undefined || time - window.start < windowMs) return window;
    windows.delete(key);
    return undefined;
  };
  return {
    take(key) {
      const time = now();
      let window = current(key, time);
      if (window === undefined) {
        if (windows.size >= maxKeys) {
          windows.delete(windows.keys().next().value!);
        }
        window = { start: time, count: 0, warned: false };
        windows.set(key, window);
      }
      window.count++;
      return count(window, time, true);
    },
    peek(key) {
      const time = now();
      const window = current(key, time) ??
        { start: time, count: 0, warned: false };
      return count(window, time, false);
    },
    get size() {
      return windows.size;
    },
  };
}
