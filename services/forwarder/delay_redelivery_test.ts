import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createBackoffVisibility } from "./backoff_visibility.ts";
import { createDelayRedelivery } from "./delay_redelivery.ts";
import { createMetrics } from "./metrics.ts";
import { createFakeQueue } from "./_test_queue.ts";

const MESSAGE = { id: "m", body: "m", receiptHandle: "r-m" };
const HOUR_MS = 3_600_000;

/** A delayRedelivery on a fake queue whose clock reads `clock.now`. */
function setUp(baseMs: number, maxMs: number, clock: { now: number }) {
  const queue = createFakeQueue([]);
  const log = createMemoryLog();
  const metrics = createMetrics();
  const delayRedelivery = createDelayRedelivery({
    queue,
    log,
    metrics,
    retryDelay: createBackoffVisibility({ baseMs, maxMs, random: () => 0.5 }),
    now: () => clock.now,
  });
  return { queue, log, metrics, delayRedelivery };
}

Deno.test("createDelayRedelivery()", async (t) => {
  await t.step(
    "sets the visibility once released, counts and logs it",
    async () => {
      const clock = { now: 0 };
      const { queue, log, metrics, delayRedelivery } = setUp(
        1000,
        HOUR_MS,
        clock,
      );
      let release = () => {};
      const released = new Promise<void>((resolve) => release = resolve);
      const done = delayRedelivery(MESSAGE, { receiveCount: 3 }, released, 0);
      await Promise.resolve();
      assert.deepEqual(queue.visibilitySet, [], "not before the release");
      release();
      await done;
      assert.deepEqual(queue.visibilitySet, [["m", 4]]);
      assert.equal(metrics.value("backoffs"), 1);
      assert.deepEqual(log.at("INFO"), [
        "Message m comes back in 4 s (backoff after receive 3)",
      ]);
    },
  );

  await t.step(
    "keeps within the 12 h SQS allows after the receive",
    async () => {
      const clock = { now: 5_000 };
      const { queue, delayRedelivery } = setUp(HOUR_MS, 12 * HOUR_MS, clock);
      // Received at 5 s; the post ended 11 h 59 min later: 60 s are left.
      clock.now += 12 * HOUR_MS - 60_000;
      await delayRedelivery(
        MESSAGE,
        { receiveCount: 20 },
        Promise.resolve(),
        5_000,
      );
      // Past them, nothing is left: visible at once, not a refused change.
      clock.now += 120_000;
      await delayRedelivery(
        MESSAGE,
        { retryAfter: "600" },
        Promise.resolve(),
        5_000,
      );
      assert.deepEqual(queue.visibilitySet, [["m", 60], ["m", 0]]);
    },
  );

  await t.step("logs a refused change and does not count it", async () => {
    const { queue, log, metrics, delayRedelivery } = setUp(1000, HOUR_MS, {
      now: 0,
    });
    queue.setVisibility = () =>
      Promise.reject(new Error("MessageNotInflight: gone"));
    await delayRedelivery(MESSAGE, { receiveCount: 1 }, Promise.resolve(), 0);
    assert.equal(metrics.value("backoffs"), 0);
    assert.deepEqual(log.at("WARNING"), [
      "Cannot delay the redelivery of message m: MessageNotInflight: gone; it comes back after its visibility timeout",
    ]);
  });
});
