import assert from "node:assert/strict";
import { withFakeClock } from "../tests/_test_clock.ts";
import { backoffDelay, sleep } from "./backoff.ts";

Deno.test("backoffDelay() doubles from 1 s and caps at 60 s, with jitter in the upper half", () => {
  const low = () => 0;
  const high = () => 0.999999;
  assert.deepEqual(
    [0, 1, 2, 4, 5, 40].map((a) => backoffDelay(a, { random: low })),
    [
      1000,
      2000,
      4000,
      16000,
      30000,
      30000,
    ],
  );
  assert.deepEqual([0, 1, 5].map((a) => backoffDelay(a, { random: high })), [
    2000,
    4000,
    60000,
  ]);
});

Deno.test("sleep() ends at its time, or early when its signal aborts", async () => {
  await withFakeClock(async (clock) => {
    let ended = false;
    const full = sleep(60_000).then(() => ended = true);
    await clock.tickAsync(59_999);
    assert.equal(ended, false);
    await clock.tickAsync(1);
    await full;
    assert.equal(ended, true);

    const controller = new AbortController();
    ended = false;
    const cut = sleep(60_000, controller.signal).then(() => ended = true);
    await clock.tickAsync(1_000);
    assert.equal(ended, false);
    controller.abort();
    await cut; // without the abort, no timer would ever end it
    assert.equal(clock.now, 61_000);
  });
});
