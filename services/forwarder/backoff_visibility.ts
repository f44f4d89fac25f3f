/**
 * How long a message left for redelivery stays hidden: exponential in its receive
 * count (FORWARD_BACKOFF_BASE_MS), or what the endpoint's `Retry-After` asked for,
 * capped (FORWARD_BACKOFF_MAX_MS).
 *
 * @module
 */

/** The longest visibility timeout SQS accepts: 12 hours. */
export const MAX_VISIBILITY_MS = 43_200_000;

/** Options of {@linkcode createBackoffVisibility}. */
export interface BackoffVisibilityOptions {
  /** Delay after the first receive; unset: only `Retry-After` sets a delay. */
  baseMs?: number;
  /** Longest delay, at most {@linkcode MAX_VISIBILITY_MS}. @default 3600000 */
  maxMs?: number;
  /** Source of randomness in [0, 1), for the ±10% jitter. @default Math.random */
  random?: () => number;
  /** The clock, for a `Retry-After` holding a date. @default Date.now */
  now?: () => number;
}

/** What a message's delay is computed from. */
export interface RetryCause {
  /** SQS's `ApproximateReceiveCount` of this delivery (1 on the first). */
  receiveCount?: number;
  /** The `Retry-After` header of a retried answer, when it had one. */
  retryAfter?: string;
}

/** A computed delay. */
export interface BackoffDecision {
  /** The new visibility timeout, in whole seconds (SQS's unit). */
  readonly seconds: number;
  /** Whether it follows the endpoint's `Retry-After`. */
  readonly fromRetryAfter: boolean;
}

/**
 * Reads a `Retry-After` value (RFC 9110 10.2.3): a number of seconds, or an HTTP
 * date; returns milliseconds from `now` (0 for a date in the past), `undefined` when
 * it is neither.
 *
 * @example
 * ```ts
 * parseRetryAfter("3"); // 3000
 * parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", Date.parse("2015-10-21T07:27:00Z")); // 60000
 * ```
 */
export function parseRetryAfter(
  value: string,
  now: number = Date.now(),
): number | undefined {
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date names its weekday and ends in GMT (IMF-fixdate, or the obsolete
  // RFC 850 and asctime forms, which Date.parse reads too).
  if (!/^[A-Za-z]{3,9},? /.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/**
 * Returns a function that computes the visibility timeout of a message left for
 * redelivery, or `undefined` when it keeps the one it has (no base, no usable
 * `Retry-After`). A `Retry-After` wins, without jitter; otherwise
 * `baseMs × 2^(receiveCount − 1)` with ±10% jitter. Either is capped at `maxMs`
 * and rounded to whole seconds.
 *
 * @example
 * ```ts
 * const delayOf = createBackoffVisibility({ baseMs: 1000, maxMs: 60_000 });
 * delayOf({ receiveCount: 3 }); // { seconds: 4, fromRetryAfter: false } (3.6 to 4.4 s)
 * delayOf({ receiveCount: 1, retryAfter: "3" }); // { seconds: 3, fromRetryAfter: true }
 * ```
 */
export function createBackoffVisibility(
  options: BackoffVisibilityOptions,
): (cause: RetryCause) => BackoffDecision | undefined {
  const { baseMs } = options;
  const maxMs = Math.min(options.maxMs ?? 3_600_000, MAX_VISIBILITY_MS);
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const seconds = (ms: number) => Math.round(Math.min(ms, maxMs) / 1000);
  return ({ receiveCount, retryAfter }) => {
    const asked = retryAfter === undefined
      ? undefined
      : parseRetryAfter(retryAfter, now());
    if (asked !== undefined) {
      return { seconds: seconds(asked), fromRetryAfter: true };
    }
    if (baseMs === undefined) return undefined;
    // 2^40 is far past any cap: larger exponents cannot change the result.
    const exponent = Math.min(Math.max((receiveCount ?? 1) - 1, 0), 40);
    const delay = Math.min(baseMs * 2 ** exponent, maxMs);
    const jitter = 0.9 + 0.2 * random();
    return { seconds: seconds(delay * jitter), fromRetryAfter: false };
  };
}
