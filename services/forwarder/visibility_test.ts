import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createVisibilityLookup } from "./visibility.ts";
import type { Queue } from "./sqs_queue.ts";

/** A queue whose `visibilityTimeout()` timeouts from `timeouts`, counting the asks. */
function queueReturning(timeouts: (() => Promise<number>)[]) {
  let asks = 0;
  const queue = {
    visibilityTimeout: () => timeouts[Math.min(asks++, timeouts.length - 1)]!(),
  } as Queue;
  return { queue, asks: () => asks };
}

Deno.test("createVisibilityLookup() uses the configured value without asking", async () => {
  const { queue, asks } = queueReturning([() => Promise.resolve(99)]);
  const log = createMemoryLog();
  const lookup = createVisibilityLookup({ queue, log, configured: 45 });
  assert.deepEqual(await lookup(), { receive: 45, seconds: 45, extendBy: 45 });
  assert.equal(asks(), 0);
  assert.deepEqual(log.entries, []);
});

Deno.test("createVisibilityLookup() extends a configured value below 30 s by 30 s", async () => {
  const { queue } = queueReturning([() => Promise.resolve(99)]);
  const log = createMemoryLog();
  const lookup = createVisibilityLookup({ queue, log, configured: 1 });
  assert.deepEqual(await lookup(), { receive: 1, seconds: 1, extendBy: 30 });
  assert.deepEqual(log.entries, []);
});

Deno.test("createVisibilityLookup() asks the queue once for every caller", async () => {
  const { queue, asks } = queueReturning([() => Promise.resolve(120)]);
  const lookup = createVisibilityLookup({ queue, log: createMemoryLog() });
  const queues = { seconds: 120, extendBy: 120 }; // nothing asked for on receive
  assert.deepEqual(await Promise.all([lookup(), lookup()]), [queues, queues]);
  assert.deepEqual(await lookup(), queues);
  assert.equal(asks(), 1);
});

Deno.test("createVisibilityLookup() asks for 30 s on receive when the queue's own is 0, and says so once", async () => {
  const { queue } = queueReturning([() => Promise.resolve(0)]);
  const log = createMemoryLog();
  const lookup = createVisibilityLookup({ queue, log });
  const floor = { receive: 30, seconds: 30, extendBy: 30 };
  assert.deepEqual(await lookup(), floor);
  assert.deepEqual(await lookup(), floor);
  assert.deepEqual(log.at("WARNING"), [
    "The queue's visibility timeout is 0 s: a received message would be visible again at once and posted again; asking for 30 s on each receive instead (set QUEUE_VISIBILITY_TIMEOUT, or the queue's visibility timeout)",
  ]);
});

Deno.test("createVisibilityLookup() extends by 30 s when the queue's own is shorter, silently", async () => {
  const { queue } = queueReturning([() => Promise.resolve(10)]);
  const log = createMemoryLog();
  const lookup = createVisibilityLookup({ queue, log });
  assert.deepEqual(await lookup(), { seconds: 10, extendBy: 30 });
  assert.deepEqual(log.entries, []);
});

Deno.test("createVisibilityLookup() falls back to 30 s after a failed ask, warns once, asks again after a minute", async () => {
  const clock = FakeTimers.install({ now: 0 });
  try {
    const { queue, asks } = queueReturning([
      () => Promise.reject(new Error("AccessDenied")),
      () => Promise.reject(new Error("AccessDenied")),
      () => Promise.resolve(90),
    ]);
    const log = createMemoryLog();
    const lookup = createVisibilityLookup({ queue, log });
    // Asked for on receive, so that the heartbeat's assumption holds.
    const fallback = { receive: 30, seconds: 30, extendBy: 30 };
    assert.deepEqual(await lookup(), fallback);
    clock.tick(30_000);
    assert.deepEqual(
      await lookup(),
      fallback,
      "the fallback serves for a minute",
    );
    assert.equal(asks(), 1);
    clock.tick(31_000);
    assert.deepEqual(await lookup(), fallback, "asked again: failed again");
    clock.tick(61_000);
    assert.deepEqual(await lookup(), { seconds: 90, extendBy: 90 });
    assert.equal(asks(), 3);
    assert.deepEqual(log.at("WARNING"), [
      "Cannot read the queue's visibility timeout: AccessDenied; assuming 30 s and asking for it on each receive until the queue tells its own (if it refuses GetQueueAttributes, set QUEUE_VISIBILITY_TIMEOUT)",
    ]);
  } finally {
    clock.uninstall();
  }
});

Deno.test("createVisibilityLookup() abandons an ask under way at the stop, without a WARNING", async () => {
  const stop = new AbortController();
  let asked: AbortSignal | undefined;
  const queue = {
    visibilityTimeout: (signal?: AbortSignal) => {
      asked = signal;
      return new Promise<number>((_, reject) =>
        signal?.addEventListener("abort", () => reject(signal.reason))
      );
    },
  } as Queue;
  const log = createMemoryLog();
  const lookup = createVisibilityLookup({ queue, log, signal: stop.signal });
  const looking = lookup();
  assert.equal(asked, stop.signal);
  stop.abort();
  assert.equal((await looking).seconds, 30);
  assert.deepEqual(log.entries, []);
});
