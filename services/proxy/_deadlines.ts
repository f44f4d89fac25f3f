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
  const pending = new Set<Entry>();
  let timer: ReturnType<typeof setInterval> | undefined;

  const check = () => {
    const now = Date.now();
    for (const entry of pending) {
      if (entry.due > now) continue;
      pending.delete(entry);
      entry.expire();
    }
    if (pending.size === 0) stop();
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
        expire() {
          finished = true;
          expire();
        },
      };
      const count = (ms = timeoutMs) => {
        entry.due = Date.now() + ms;
        pending.add(entry);
        timer ??= setInterval(check, tick);
      };
      count();
      return {
        restart(ms) {
          if (!finished) count(ms);
        },
        done() {
          finished = true;
          pending.delete(entry);
          if (pending.size === 0) stop();
        },
      };
    },
  };
}
