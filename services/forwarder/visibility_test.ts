import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createMemoryLog } from "../../lib/log.ts";
import { createVisibilityLookup } from "./visibility.ts";
import type { Queue } from "./sqs_queue.ts";

/** A queue whose `visibilityTimeout()` answers from `answers`, counting the asks. */
function queueAnswering(answers: (() => Promise<number>)[]) {
  let asks = 0;
  const queue = {
    visibilityTimeout: () => answers[Math.min(asks++, answers.length - 1)]!(),
  } as Queue;
  return { queue, asks: () => asks };
}

Deno.test("createVisibilityLookup() uses the configured value without asking", async () => {
  const { queue, asks } = queueAnswering([() => Promise.resolve(99)]);
  const lookup = createVisibilityLookup({
    queue,
    log: createMemoryLog(),
    configured: 45,
  });
  assert.equal(await lookup(), 45);
  assert.equal(asks(), 0);
});

Deno.test("createVisibilityLookup() asks the queue once for every caller", async () => {
  const { queue, asks } = queueAnswering([() => Promise.resolve(120)]);
  const lookup = createVisibilityLookup({ queue, log: createMemoryLog() });
  assert.deepEqual(await Promise.all([lookup(), lookup()]), [120, 120]);
  assert.equal(await lookup(), 120);
  assert.equal(asks(), 1);
});

Deno.test("createVisibilityLookup() falls back to 30 s after a failed ask, warns once, asks again after a minute", async () => {
  const clock = FakeTimers.install({ now: 0 });
  try {
    const { queue, asks } = queueAnswering([
      () => Promise.reject(new Error("AccessDenied")),
      () => Promise.reject(new Error("AccessDenied")),
      () => Promise.resolve(90),
    ]);
    const log = createMemoryLog();
    const lookup = createVisibilityLookup({ queue, log });
    assert.equal(await lookup(), 30);
    clock.tick(30_000);
    assert.equal(await lookup(), 30, "the fallback serves for a minute");
    assert.equal(asks(), 1);
    clock.tick(31_000);
    assert.equal(await lookup(), 30, "asked again: failed again");
    clock.tick(61_000);
    assert.equal(await lookup(), 90);
    assert.equal(asks(), 3);
    assert.deepEqual(log.at("WARNING"), [
      "Cannot read the queue's visibility timeout: AccessDenied; assuming 30 s (set QUEUE_VISIBILITY_TIMEOUT)",
    ]);
  } finally {
    clock.uninstall();
  }
});
