/**
 * Polling of a chip's status register until a measurement is ready.
 *
 * @module
 */

/**
 * Checks `ready()` up to `attempts` times, waiting `intervalMs` after each miss, and
 * throws `Error(failure)` when it never turns true.
 */
export async function pollUntil(
  ready: () => boolean,
  wait: (ms: number) => Promise<void>,
  options: { intervalMs: number; attempts: number; failure: string },
): Promise<void> {
  for (let attempt = 0; attempt < options.attempts; attempt++) {
    if (ready()) return;
    await wait(options.intervalMs);
  }
  throw new Error(options.failure);
}
