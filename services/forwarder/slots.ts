/**
 * A counting semaphore taken and given back in any amount: how many messages the
 * forwarder may hold at once.
 *
 * @module
 */

/** Slots shared by the receive loops. */
export interface Slots {
  /**
   * Takes `n` slots, waiting in call order until they are free. Resolves `false`
   * (taking none) when `signal` aborts first.
   */
  take(n: number, signal?: AbortSignal): Promise<boolean>;
  /** Gives `n` slots back. */
  give(n: number): void;
  /** Slots taken now. */
  readonly taken: number;
}

/**
 * Returns {@linkcode Slots} holding `total` slots.
 *
 * @example
 * ```ts
 * const slots = createSlots(20);
 * const signal = new AbortController().signal;
 * if (await slots.take(10, signal)) {
 *   // receive up to 10 messages, give back what did not come, and the rest once handled
 * }
 * ```
 */
export function createSlots(total: number): Slots {
  let taken = 0;
  const waiting: { n: number; resolve: (ok: boolean) => void }[] = [];
  const wake = () => {
    while (waiting.length > 0 && taken + waiting[0]!.n <= total) {
      const next = waiting.shift()!;
      taken += next.n;
      next.resolve(true);
    }
  };
  return {
    get taken() {
      return taken;
    },
    take(n, signal) {
      if (signal?.aborted) return Promise.resolve(false);
      if (waiting.length === 0 && taken + n <= total) {
        taken += n;
        return Promise.resolve(true);
      }
      return new Promise((resolve) => {
        const entry = {
          n,
          resolve: (ok: boolean) => {
            signal?.removeEventListener("abort", abort);
            resolve(ok);
          },
        };
        const abort = () => {
          const index = waiting.indexOf(entry);
          if (index >= 0) waiting.splice(index, 1);
          entry.resolve(false);
          wake();
        };
        signal?.addEventListener("abort", abort, { once: true });
        waiting.push(entry);
      });
    },
    give(n) {
      taken -= n;
      wake();
    },
  };
}
