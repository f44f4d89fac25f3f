/**
 * An abort signal that fires after a time limit or when a parent signal aborts.
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

/** Starts a {@linkcode Deadline} of `ms` milliseconds, linked to `parent`. */
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
