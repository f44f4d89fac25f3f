/**
 * A scripted {@linkcode Scanner} for tests: records its calls with the (fake) time and
 * lets the test deliver advertisements.
 *
 * @module
 */
import type { Advertisement, Scanner } from "./scanner.ts";

/** A fake scanner and its record of calls. */
export interface FakeScanner extends Scanner {
  /** `start`, `stop` and `close` calls with `Date.now()` at the time. */
  readonly calls: { call: "start" | "stop" | "close"; at: number }[];
  /** Delivers an advertisement to the current listener. */
  advertise(advertisement: Advertisement): void;
}

/** Builds a fake scanner; `failStart(n)` makes the n-th start (from 1) reject. */
export function createFakeScanner(
  options: { failStart?: (attempt: number) => Error | undefined } = {},
): FakeScanner {
  let listener: ((ad: Advertisement) => void) | undefined;
  let starts = 0;
  const calls: FakeScanner["calls"] = [];
  return {
    calls,
    advertise: (ad) => listener?.(ad),
    start(onAdvertisement) {
      calls.push({ call: "start", at: Date.now() });
      const error = options.failStart?.(++starts);
      if (error) return Promise.reject(error);
      listener = onAdvertisement;
      return Promise.resolve();
    },
    stop() {
      calls.push({ call: "stop", at: Date.now() });
      listener = undefined;
      return Promise.resolve();
    },
    close() {
      calls.push({ call: "close", at: Date.now() });
      listener = undefined;
      return Promise.resolve();
    },
  };
}
