/**
 * A fake clock for unit tests whose subject waits on timers: the test moves time
 * itself, so a loaded machine can neither make a deadline fire early nor slow the
 * suite down.
 *
 * @module
 */
import FakeTimers from "@sinonjs/fake-timers";

/** The clock {@linkcode withFakeClock} hands to its body. */
export type FakeClock = ReturnType<typeof FakeTimers.install>;

/** Runs `body` with timers and `Date` faked from time 0; restores them afterwards. */
export async function withFakeClock(
  body: (clock: FakeClock) => Promise<void>,
): Promise<void> {
  const clock = FakeTimers.install({ now: 0 });
  try {
    await body(clock);
  } finally {
    clock.uninstall();
  }
}
