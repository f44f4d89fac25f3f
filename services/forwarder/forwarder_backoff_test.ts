import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createBackoffVisibility } from "./backoff_visibility.ts";
import { createForwarder, type ForwarderOptions } from "./forwarder.ts";
import { createMetrics } from "./metrics.ts";
import type { PostReply } from "./poster.ts";
import type { QueueMessage } from "./sqs_queue.ts";
import { createFakeQueue, until } from "./_test_queue.ts";

/** A message received for the `count`th time. */
function received(id: string, count: number, groupId?: string): QueueMessage {
  return {
    id,
    body: id,
    receiptHandle: `r-${id}`,
    systemAttributes: { ApproximateReceiveCount: String(count) },
    ...(groupId === undefined ? {} : { groupId }),
  };
}

/** Runs a forwarder on one batch until `settled` holds, then stops it. */
async function runOnce(
  batch: QueueMessage[],
  reply: (id: string) => Promise<PostReply>,
  settled: (
    queue: ReturnType<typeof createFakeQueue>,
    metrics: ReturnType<typeof createMetrics>,
  ) => boolean,
  options: Partial<ForwarderOptions> = {},
  visibilitySeconds = 30,
) {
  const queue = createFakeQueue([batch], visibilitySeconds);
  const log = createMemoryLog();
  const metrics = createMetrics();
  const forwarder = createForwarder({
    queue,
    post: (body) => reply(body),
    log,
    metrics,
    settings: { retryStatuses: new Set([429, 503]) },
    ...options,
  });
  const running = forwarder.run();
  await until(() => Promise.resolve(settled(queue, metrics)));
  await forwarder.stop();
  await running;
  return { queue, log, metrics };
}

const backoff = (baseMs?: number, maxMs = 3_600_000) =>
  createBackoffVisibility({ baseMs, maxMs, random: () => 0.5 });

Deno.test("createForwarder() with a backoff", async (t) => {
  await t.step(
    "hides a retried or failed message for base × 2^(receives − 1)",
    async () => {
      const batch = [
        received("a", 1),
        received("b", 3),
        received("c", 2),
        received("ok", 1),
      ];
      const { queue, log, metrics } = await runOnce(
        batch,
        (id) =>
          id === "c"
            ? Promise.reject(new Error("connection refused"))
            : Promise.resolve({ status: id === "ok" ? 200 : 503 }),
        (q) => q.visibilitySet.length === 3 && q.deleted.length === 1,
        { retryDelay: backoff(1000) },
      );
      assert.deepEqual(queue.visibilitySet.toSorted(), [
        ["a", 1],
        ["b", 4],
        ["c", 2],
      ]);
      assert.deepEqual(queue.deleted, ["ok"]);
      assert.equal(metrics.value("backoffs"), 3);
      assert.equal(metrics.value("backoffs"), 3);
      assert.ok(
        log.at("INFO").includes(
          "Message b comes back in 4 s (backoff after receive 3)",
        ),
      );
    },
  );

  await t.step(
    "follows a Retry-After, capped, even without a base",
    async () => {
      const { queue, log } = await runOnce(
        [received("soon", 1), received("late", 1), received("date", 1)],
        (id) =>
          Promise.resolve({
            status: 429,
            retryAfter: id === "soon"
              ? "3"
              : id === "late"
              ? "86400"
              : new Date(Date.now() + 60_000).toUTCString(),
          }),
        (q) => q.visibilitySet.length === 3,
        { retryDelay: backoff(undefined, 120_000) },
      );
      const set = Object.fromEntries(queue.visibilitySet);
      assert.equal(set.soon, 3);
      assert.equal(set.late, 120);
      assert.ok(set.date! >= 58 && set.date! <= 60, `date: ${set.date}`);
      assert.ok(
        log.at("INFO").includes(
          "Message soon comes back in 3 s (the endpoint's Retry-After)",
        ),
      );
    },
  );

  await t.step(
    "leaves the visibility alone without a base or a Retry-After",
    async () => {
      const { queue, metrics } = await runOnce(
        [received("a", 4)],
        () => Promise.resolve({ status: 503 }),
        (_, m) => m.value("retried") === 1,
        { retryDelay: backoff(undefined) },
      );
      assert.deepEqual(queue.visibilitySet, []);
      assert.equal(metrics.value("backoffs"), 0);
    },
  );

  await t.step(
    "ignores a Retry-After of a status that deletes the message",
    async () => {
      const { queue } = await runOnce(
        [received("gone", 1)],
        () => Promise.resolve({ status: 500, retryAfter: "3" }),
        (q) => q.deleted.length === 1,
        { retryDelay: backoff(1000) },
      );
      assert.deepEqual(queue.visibilitySet, []);
    },
  );

  await t.step(
    "stops extending a retried message while the others' posts run",
    async () => {
      // Visibility 1 s: the heartbeat extends at about 667 ms, while "slow" posts.
      const { queue } = await runOnce(
        [received("fast", 1), received("slow", 1)],
        (id) =>
          id === "fast"
            ? Promise.resolve({ status: 503 })
            : new Promise((resolve) =>
              setTimeout(() => resolve({ status: 200 }), 1200)
            ),
        (q) => q.deleted.length === 1,
        { retryDelay: backoff(5000) },
        1,
      );
      assert.deepEqual(queue.visibilitySet, [["fast", 5]]);
      assert.ok(queue.extended.length > 0, "the slow post was extended");
      for (const ids of queue.extended) assert.deepEqual(ids, ["slow"]);
    },
  );

  await t.step(
    "keeps within the 12 hours SQS allows a message in flight",
    async () => {
      // SQS counts the 12 h from the receive and refuses a change past them: a post
      // that ended 11 h 59 min after the receive leaves 60 s.
      let clock = 1_000;
      const { queue, log } = await runOnce(
        [received("late", 30)],
        () => {
          clock += 43_140_000;
          return Promise.resolve({ status: 503 });
        },
        (q) => q.visibilitySet.length === 1,
        {
          retryDelay: backoff(1000, 43_200_000),
          now: () => clock,
        },
      );
      assert.deepEqual(queue.visibilitySet, [["late", 60]]);
      assert.ok(
        log.at("INFO").includes(
          "Message late comes back in 60 s (backoff after receive 30)",
        ),
      );
    },
  );

  await t.step("logs a refused visibility change as a warning", async () => {
    const queue = createFakeQueue([[received("x", 1)]]);
    queue.setVisibility = () =>
      Promise.reject(new Error("ReceiptHandleIsInvalid: gone"));
    const log = createMemoryLog();
    const forwarder = createForwarder({
      queue,
      post: () => Promise.resolve({ status: 503 }),
      log,
      settings: { retryStatuses: new Set([503]) },
      retryDelay: backoff(1000),
    });
    const running = forwarder.run();
    await until(() => Promise.resolve(log.at("WARNING").length === 2));
    await forwarder.stop();
    await running;
    assert.equal(
      log.at("WARNING")[1],
      "Cannot delay the redelivery of message x: ReceiptHandleIsInvalid: gone; it comes back after its visibility timeout",
    );
  });
});

Deno.test("createForwarder() passes each message's extra headers to the post", async () => {
  const seen: [string, string][][] = [];
  const queue = createFakeQueue([[received("m1", 1), received("m2", 2)]]);
  const forwarder = createForwarder({
    queue,
    post: (_body, _signal, extra) => {
      seen.push(extra?.('"sent"') ?? []);
      return Promise.resolve({ status: 200 });
    },
    log: createMemoryLog(),
    headers: (message) => (sent) => [["x-id", message.id], ["x-body", sent]],
  });
  const running = forwarder.run();
  await until(() => Promise.resolve(queue.deleted.length === 2));
  await forwarder.stop();
  await running;
  assert.deepEqual(seen.toSorted(), [
    [["x-id", "m1"], ["x-body", '"sent"']],
    [["x-id", "m2"], ["x-body", '"sent"']],
  ]);
});
