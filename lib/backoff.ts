/**
 * Capped exponential backoff with full jitter, and an abortable sleep.
 *
 * @module
 */

/** Options of {@linkcode backoffDelay}. */
export interface BackoffOptions {
  /** Shortest delay, that of the first retry before jitter. @default 1000 */
  baseMs?: number;
  /** Largest delay. @default 60000 */
  maxMs?: number;
  /** Source of randomness in [0, 1). @default Math.random */
  random?: () => number;
}

/**
 * Returns the delay before retry number `attempt` (0 for the first retry): a random
 * value between half and all of `min(maxMs, baseMs * 2^(attempt + 1))`, so always
 * from `baseMs` to `maxMs`.
 *
 * @example
 * ```ts
 * backoffDelay(0); // between 1000 and 2000
 * backoffDelay(10); // between 30000 and 60000
 * ```
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions = {},
): number {
  const { baseMs = 1000, maxMs = 60_000, random = Math.random } = options;
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt + 1, 30));
  const delay = Math.round(ceiling / 2 + random() * (ceiling / 2));
  return Math.max(Math.min(baseMs, maxMs), delay);
}

/**
 * Resolves after `ms`, or early (without throwing) when `signal` aborts.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * await sleep(10, controller.signal); // resolves early when the signal aborts
 * ```
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
