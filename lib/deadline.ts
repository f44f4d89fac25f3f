/**
 * Time limits for asynchronous work: an abort signal that fires after a limit or when
 * a parent signal aborts, and helpers built on it.
 *
 * @module
 */

/** A signal with a time limit; call `clear()` when the work is over. */
export interface Deadline {
  /** Aborts after the limit, or when the parent aborts. */
  readonly signal: AbortSignal;
  /** Whether the time limit (not the parent) fired. */
  readonly expired: () => boolean;
  /** Cancels the timer and the link to the parent. */
  clear(): void;
}

/**
 * Starts a {@linkcode Deadline} of `ms` milliseconds, linked to `parent`.
 *
 * @example
 * ```ts
 * const shutdown = new AbortController();
 * const limit = deadline(5000, shutdown.signal);
 * try {
 *   await fetch("http://127.0.0.1:8001/healthz", { signal: limit.signal });
 * } finally {
 *   limit.clear();
 * }
 * ```
 */
export function deadline(ms: number, parent?: AbortSignal): Deadline {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new Error(`timed out after ${ms} ms`));
  }, ms);
  const onParent = () => controller.abort(parent?.reason);
  if (parent?.aborted) onParent();
  else parent?.addEventListener("abort", onParent, { once: true });
  return {
    signal: controller.signal,
    expired: () => expired,
    clear() {
      clearTimeout(timer);
      parent?.removeEventListener("abort", onParent);
    },
  };
}

/**
 * Settles with `work`, or rejects when the deadline's signal aborts first (the work
 * may go on in the background; its outcome is ignored).
 *
 * @example
 * ```ts
 * const slowRead = new Promise<number>((resolve) => setTimeout(() => resolve(21.5), 10));
 * const reading = await raceSignal(slowRead, deadline(2000).signal); // 21.5
 * ```
 */
export function raceSignal<T>(
  work: Promise<T>,
  signal: AbortSignal,
): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() =>
      signal.removeEventListener("abort", onAbort)
    );
  });
}

/**
 * The time limit of {@linkcode withDeadline} ran out; `code` is `"TIMEOUT"`.
 *
 * @example
 * ```ts
 * const error = new DeadlineError("No reply within 30000 ms");
 * error.code; // "TIMEOUT"
 * ```
 */
export class DeadlineError extends Error {
  /** `"TIMEOUT"`. */
  readonly code = "TIMEOUT";
  /** Builds the error; `message` says which limit ran out. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "DeadlineError";
  }
}

/**
 * Runs `work` with a signal that aborts after `ms` or when `parent` aborts. When the
 * time limit is what stopped it, the rejection is a {@linkcode DeadlineError} of
 * `timeoutMessage`, with the original error as its cause unless that is only the
 * time-out itself; any other outcome passes through unchanged. Work that does not
 * heed the signal can be raced against it: `(signal) => raceSignal(work(), signal)`.
 *
 * @example
 * ```ts
 * const shutdown = new AbortController();
 * const response = await withDeadline(
 *   30_000,
 *   shutdown.signal,
 *   (signal) => fetch("http://127.0.0.1:8001/healthz", { signal }),
 *   "No reply within 30000 ms",
 * );
 * ```
 */
export async function withDeadline<T>(
  ms: number,
  parent: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
  timeoutMessage: string,
): Promise<T> {
  const limit = deadline(ms, parent);
  try {
    return await work(limit.signal);
  } catch (error) {
    if (limit.expired()) {
      throw error === limit.signal.reason
        ? new DeadlineError(timeoutMessage)
        : new DeadlineError(timeoutMessage, { cause: error });
    }
    throw error;
  } finally {
    limit.clear();
  }
}
