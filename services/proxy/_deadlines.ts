/**
 * Time-outs of the relay's upstream requests on one shared, coarse timer.
 *
 * A `setTimeout` and `clearTimeout` per relayed request cost a measurable share of the
 * proxy's time per request; a single interval that checks the calls in flight costs
 * next to nothing per call, at the price of firing up to one tick late.
 *
 * @module
 */

/**
 * One request's time-out on the shared timer (restartable, unlike the
 * `Deadline` of `lib/deadline.ts`, which is a signal).
 */
export interface RequestTimeout {
  /**
   * Counts the time-out again from now (unless {@linkcode done}); `ms` instead of the
   * set's time-out for this once.
   */
  restart(ms?: number): void;
  /** The call finished: the deadline no longer fires. */
  done(): void;
}

/** A set of deadlines of the same length sharing one timer. */
export interface Deadlines {
  /** Starts a deadline that calls `expire` once, `timeoutMs` from now. */
  start(expire: () => void): RequestTimeout;
}

interface Entry {
  due: number;
  /** Where the entry is in the pending list, or -1 when it is not pending. */
  at: number;
  expire: () => void;
}

/**
 * Returns deadlines of `timeoutMs`. They fire between `timeoutMs` and `timeoutMs`
 * plus one tick (a tenth of `timeoutMs`, 1 to 250 ms) after their last (re)start,
 * unless done since. A deadline that fired is done. The
 * timer runs only while a deadline is pending, so an idle proxy holds no timer.
 *
 * @example
 * ```ts
 * const controller = new AbortController();
 * const deadlines = createDeadlines(30_000);
 * const deadline = deadlines.start(() => controller.abort());
 * deadline.done();
 * ```
 */
export function createDeadlines(timeoutMs: number): Deadlines {
  const tick = Math.min(250, Math.max(1, Math.round(timeoutMs / 10)));
  // An array, each entry knowing its place: removing one moves the last into its
  // place. With a long-lived `Set` instead, adding and deleting an entry per request
  // made V8 promote each request's objects to the old generation (measured under
  // load: 863 bytes a request against 1, and a scavenge pause per request 2 to 3
  // times as long).
  const pending: Entry[] = [];
  let timer: ReturnType<typeof setInterval> | undefined;

  const remove = (entry: Entry) => {
    const last = pending.pop()!;
    if (last !== entry) {
      pending[entry.at] = last;
      last.at = entry.at;
    }
    entry.at = -1;
  };
  const check = () => {
    const now = Date.now();
    const expired = pending.filter((entry) => entry.due <= now);
    for (const entry of expired) remove(entry);
    // One restarted by the expiry of another is pending again: not due now.
    for (const entry of expired) if (entry.at < 0) entry.expire();
    if (pending.length === 0) stop();
  };
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };

  return {
    start(expire) {
      let finished = false;
      const entry: Entry = {
        due: 0,
        at: -1,
        // Not when done by the expiry of another due at the same tick.
        expire() {
          if (finished) return;
          finished = true;
          expire();
        },
      };
      const count = (ms = timeoutMs) => {
        entry.due = Date.now() + ms;
        if (entry.at < 0) {
          entry.at = pending.length;
          pending.push(entry);
        }
        timer ??= setInterval(check, tick);
      };
      count();
      return {
        restart(ms) {
          if (!finished) count(ms);
        },
        done() {
          finished = true;
          if (entry.at >= 0) remove(entry);
          if (pending.length === 0) stop();
        },
      };
    },
  };
}
