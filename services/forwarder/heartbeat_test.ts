import assert from "node:assert/strict";
import { withFakeClock } from "../../tests/_test_clock.ts";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { startHeartbeat } from "./heartbeat.ts";
import type { Queue, QueueMessage } from "./sqs_queue.ts";

const message = (id: string): QueueMessage => ({
  id,
  body: id,
  receiptHandle: `r-${id}`,
});

/** A queue whose extensions wait until the test releases them. */
function slowQueue() {
  const calls: { ids: string[]; release: () => void }[] = [];
  const queue: Queue = {
    visibilityTimeout: () => Promise.resolve(3),
    receive: () => Promise.resolve([]),
    deleteBatch: () => Promise.resolve([]),
    extendVisibility: (messages) =>
      new Promise((resolve) =>
        calls.push({
          ids: messages.map((m) => m.id),
          release: () => resolve([]),
        })
      ),
    setVisibility: () => Promise.resolve(),
  };
  return { queue, calls };
}

Deno.test("startHeartbeat() extends the pending messages, one extension at a time", async () => {
  await withFakeClock(async (clock) => {
    const { queue, calls } = slowQueue();
    const [a, b] = [message("a"), message("b")];
    const heartbeat = startHeartbeat({
      queue,
      log: createMemoryLog(),
      messages: [a, b],
      visibilitySeconds: 3,
    });
    await clock.tickAsync(1999);
    assert.equal(calls.length, 0);
    await clock.tickAsync(1); // two thirds of 3 s
    assert.deepEqual(calls.map((call) => call.ids), [["a", "b"]]);
    heartbeat.done(a);
    await clock.tickAsync(2000); // the first is still under way: skipped
    assert.equal(calls.length, 1);
    calls[0]!.release();
    await clock.tickAsync(2000);
    assert.deepEqual(calls.map((call) => call.ids), [["a", "b"], ["b"]]);
    let stopped = false;
    const stopping = heartbeat.stop().then(() => stopped = true);
    await clock.tickAsync(0);
    assert.equal(stopped, false, "stop() waits for the extension under way");
    calls[1]!.release();
    await stopping;
    await clock.tickAsync(10_000);
    assert.equal(calls.length, 2);
  });
});

Deno.test("startHeartbeat() logs a failed extension as a warning", async () => {
  await withFakeClock(async (clock) => {
    const log = createMemoryLog();
    const queue: Queue = {
      ...slowQueue().queue,
      extendVisibility: () =>
        Promise.reject(new Error("ReceiptHandleIsInvalid")),
    };
    const heartbeat = startHeartbeat({
      queue,
      log,
      messages: [message("a")],
      visibilitySeconds: 3,
    });
    await clock.tickAsync(2000);
    await heartbeat.stop();
    assert.deepEqual(log.at("WARNING"), [
      "Cannot extend the visibility of 1 message: ReceiptHandleIsInvalid",
    ]);
  });
});

Deno.test("startHeartbeat() logs each entry the queue refused to extend", async () => {
  await withFakeClock(async (clock) => {
    const log = createMemoryLog();
    const queue: Queue = {
      ...slowQueue().queue,
      extendVisibility: (messages) =>
        Promise.resolve(
          messages.filter((m) => m.id !== "a").map((m) => ({
            message: m,
            reason: m.id === "b"
              ? "MessageNotInflight: Message is not in flight"
              : "InternalError: try again",
            code: m.id === "b" ? "MessageNotInflight" : "InternalError",
          })),
        ),
    };
    const heartbeat = startHeartbeat({
      queue,
      log,
      messages: [message("a"), message("b"), message("c")],
      visibilitySeconds: 3,
    });
    await clock.tickAsync(2000);
    // b, no longer in flight, is not asked for again; c, refused by a fault of the
    // queue, is.
    await clock.tickAsync(2000);
    await heartbeat.stop();
    assert.deepEqual(log.at("WARNING"), [
      "Cannot extend the visibility of message b: MessageNotInflight: Message is not in flight; it may be delivered again",
      "Cannot extend the visibility of message c: InternalError: try again; it may be delivered again",
      "Cannot extend the visibility of message c: InternalError: try again; it may be delivered again",
    ]);
    assert.deepEqual(log.at("DEBUG"), [
      "Extended the visibility of 3 messages by 3 s, 2 refused",
      "Extended the visibility of 2 messages by 3 s, 1 refused",
    ]);
  });
});

Deno.test("startHeartbeat() release() waits for the extension under way", async () => {
  await withFakeClock(async (clock) => {
    const { queue, calls } = slowQueue();
    const [a, b] = [message("a"), message("b")];
    const heartbeat = startHeartbeat({
      queue,
      log: createMemoryLog(),
      messages: [a, b],
      visibilitySeconds: 3,
    });
    await clock.tickAsync(2000);
    assert.deepEqual(calls.map((call) => call.ids), [["a", "b"]]);
    let released = false;
    const releasing = heartbeat.release([a]).then(() => released = true);
    await clock.tickAsync(0);
    assert.equal(released, false, "the extension naming a is still under way");
    calls[0]!.release();
    await releasing;
    // Released, a is not extended again.
    await clock.tickAsync(2000);
    assert.deepEqual(calls.map((call) => call.ids), [["a", "b"], ["b"]]);
    calls[1]!.release();
    await heartbeat.stop();
  });
});

Deno.test("startHeartbeat() extends by extendBySeconds, first within the visibility in force", async () => {
  await withFakeClock(async (clock) => {
    const asked: { at: number; seconds: number }[] = [];
    const queue: Queue = {
      ...slowQueue().queue,
      extendVisibility: (_messages, seconds) => {
        asked.push({ at: Date.now(), seconds });
        return Promise.resolve([]);
      },
    };
    const heartbeat = startHeartbeat({
      queue,
      log: createMemoryLog(),
      messages: [message("a")],
      visibilitySeconds: 3,
      extendBySeconds: 30,
    });
    // Two thirds of the 3 s in force, then two thirds of each 30 s extension.
    await clock.tickAsync(42_000);
    await heartbeat.stop();
    assert.deepEqual(asked, [
      { at: 2000, seconds: 30 },
      { at: 22_000, seconds: 30 },
      { at: 42_000, seconds: 30 },
    ]);
  });
});
