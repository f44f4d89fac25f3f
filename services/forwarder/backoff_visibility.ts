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
  /** The `Retry-After` header of a retried response, when it had one. */
  retryAfter?: string;
}

/** A computed delay. */
export interface BackoffDecision {
  /** The new visibility timeout, in whole seconds (SQS's unit). */
  readonly seconds: number;
  /** Whether it follows the endpoint's `Retry-After`. */
  readonly fromRetryAfter: boolean;
}

const MONTHS = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(" ");
/** IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (?<day>\d\d) (?<month>[A-Z][a-z]{2}) (?<year>\d{4}) (?<hour>\d\d):(?<minute>\d\d):(?<second>\d\d) GMT$/;
/** The obsolete RFC 850 form: `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC_850 =
  /^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, (?<day>\d\d)-(?<month>[A-Z][a-z]{2})-(?<year>\d\d) (?<hour>\d\d):(?<minute>\d\d):(?<second>\d\d) GMT$/;
/** The obsolete asctime form: `Sun Nov  6 08:49:37 1994`. */
const ASCTIME =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?<month>[A-Z][a-z]{2}) (?<day>[ \d]\d) (?<hour>\d\d):(?<minute>\d\d):(?<second>\d\d) (?<year>\d{4})$/;

/**
 * Reads an HTTP date in one of its three forms (RFC 9110 5.6.7) as milliseconds since
 * the epoch; `undefined` for anything else, an impossible date (31 Feb) included.
 * `Date.parse` is not used: it reads nearly anything (`"abc, 2030"` is 1 Jan 2030).
 */
function parseHttpDate(text: string, now: number): number | undefined {
  const found = IMF_FIXDATE.exec(text) ?? RFC_850.exec(text) ??
    ASCTIME.exec(text);
  const fields = found?.groups;
  if (fields === undefined) return undefined;
  const [day, hour, minute, second] = [
    fields.day,
    fields.hour,
    fields.minute,
    fields.second,
  ].map(Number) as [number, number, number, number];
  let year = Number(fields.year);
  // A two-digit year (RFC 850) more than 50 years ahead is the last such year past.
  if (fields.year?.length === 2) {
    year += 2000;
    if (year > new Date(now).getUTCFullYear() + 50) year -= 100;
  }
  const month = MONTHS.indexOf(fields.month ?? "");
  if (month < 0 || hour > 23 || minute > 59 || second > 60) return undefined;
  const at = Date.UTC(year, month, day, hour, minute, second);
  // Date.UTC rolls an impossible day (31 Feb, 00) over into the next month.
  return new Date(at).getUTCDate() === day ? at : undefined;
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
  const at = parseHttpDate(text, now);
  return at === undefined ? undefined : Math.max(0, at - now);
}

/**
 * Returns a function that computes the visibility timeout of a message left for
 * redelivery, or `undefined` when it keeps the one it has (no base, no usable
 * `Retry-After`). A `Retry-After` wins, without jitter; otherwise
 * `baseMs × 2^(receiveCount − 1)` with ±10% jitter. Either is capped at `maxMs`,
 * rounded to whole seconds and at least 1 s: a message never comes back at once, so
 * an endpoint that answers `Retry-After: 0` to everything cannot spin the forwarder.
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
  const seconds = (ms: number) =>
    Math.max(1, Math.round(Math.min(ms, maxMs) / 1000));
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
