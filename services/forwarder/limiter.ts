/**
 * A counting semaphore for async work.
 *
 * @module
 */

/** Runs async functions with at most a fixed number in flight. */
export interface Limiter {
  /** Runs `task` once a slot is free; resolves or rejects as `task` does. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
}

/**
 * Returns a {@linkcode Limiter} allowing `slots` tasks at once, started in call order.
 *
 * @example
 * ```ts
 * const urls = ["http://127.0.0.1:8001/healthz", "http://127.0.0.1:8003/healthz"];
 * const limiter = createLimiter(10);
 * await Promise.all(urls.map((url) => limiter.run(() => fetch(url))));
 * ```
 */
export function createLimiter(slots: number): Limiter {
  let active = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    active--;
    const next = waiting.shift();
    if (next) {
      active++;
      next();
    }
  };
  return {
    get active() {
      return active;
    },
    async run(task) {
      if (active < slots) active++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
