import assert from "node:assert/strict";
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

Deno.test("sleep() ends early when its signal aborts", async () => {
  const controller = new AbortController();
  const started = performance.now();
  const slept = sleep(60_000, controller.signal);
  controller.abort();
  await slept;
  assert.ok(performance.now() - started < 1000);
});
