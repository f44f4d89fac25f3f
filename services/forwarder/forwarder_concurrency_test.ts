/**
 * How the forwarder spreads its work: receives in flight per receiver, posts capped
 * at the concurrency, FIFO message groups in order.
 */
import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createForwarder } from "./forwarder.ts";
import type { PostReply } from "./poster.ts";
import type { QueueMessage } from "./sqs_queue.ts";
import { createFakeQueue, messages, until } from "./_test_queue.ts";

const OK: PostReply = { status: 200 };

/** A post that waits until `release()`, counting the posts in flight. */
function heldPost() {
  let posting = 0;
  let peak = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  const post = async () => {
    posting++;
    peak = Math.max(peak, posting);
    await released;
    posting--;
    return OK;
  };
  return {
    post,
    release,
    get posting() {
      return posting;
    },
    get peak() {
      return peak;
    },
  };
}

Deno.test("createForwarder() keeps a receive in flight per receiver, posts at most `concurrency` at once", async () => {
  const queue = createFakeQueue([
    messages("a", 10),
    messages("b", 10),
    messages("c", 10),
  ], 1);
  const post = heldPost();
  const forwarder = createForwarder({
    queue,
    post: post.post,
    log: createMemoryLog(),
    settings: { receivers: 3, concurrency: 10, batchSize: 10 },
  });
  const running = forwarder.run();
  await until(() => Promise.resolve(post.posting === 10));
  await new Promise((resolve) => setTimeout(resolve, 50));
  // Room for a batch per receiver: all three receives went out at once.
  assert.equal(queue.receives, 3);
  assert.equal(queue.peakReceiving, 3);
  assert.equal(post.posting, 10);
  // The messages waiting for a post slot are kept invisible too.
  await until(() => Promise.resolve(queue.extended.length >= 3));
  assert.equal(new Set(queue.extended.flat()).size, 30);
  post.release();
  await until(() => Promise.resolve(queue.deleted.length === 30));
  await until(() => Promise.resolve(queue.receiving === 3));
  assert.equal(post.peak, 10);
  await forwarder.stop();
  await running;
});

Deno.test("createForwarder() holds `concurrency` messages when that is more than a batch per receiver", async () => {
  // The bench's settings: 4 receivers, 80 posts in flight, batches of 10.
  const queue = createFakeQueue(
    Array.from({ length: 9 }, (_, i) => messages(`b${i}-`, 10)),
  );
  const post = heldPost();
  const forwarder = createForwarder({
    queue,
    post: post.post,
    log: createMemoryLog(),
    settings: { receivers: 4, concurrency: 80, batchSize: 10 },
  });
  const running = forwarder.run();
  await until(() => Promise.resolve(post.posting === 80));
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(queue.receives, 8);
  assert.equal(queue.receiving, 0);
  post.release();
  await until(() => Promise.resolve(queue.deleted.length === 90));
  assert.equal(post.peak, 80);
  await forwarder.stop();
  await running;
});

Deno.test("createForwarder() with defaults keeps one receive in flight", async () => {
  const queue = createFakeQueue([]);
  const forwarder = createForwarder({
    queue,
    post: () => Promise.resolve(OK),
    log: createMemoryLog(),
  });
  const running = forwarder.run();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(queue.peakReceiving, 1);
  await forwarder.stop();
  await running;
});

/** A seeded pseudo-random generator in [0, 1) (mulberry32), for repeatable runs. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("createForwarder() posts the messages of a group one after another, in receive order", async () => {
  // As real SQS may: several messages of a group in one receive, groups interleaved.
  const groups: (string | undefined)[] = [
    "A",
    "B",
    "A",
    undefined,
    "B",
    "A",
    "C",
    "A",
    undefined,
    "B",
  ];
  const batch: QueueMessage[] = groups.map((groupId, i) => ({
    id: `${groupId ?? "none"}-${i}`,
    body: `${groupId ?? "none"}-${i}`,
    receiptHandle: `r${i}`,
    ...(groupId === undefined ? {} : { groupId }),
  }));
  const queue = createFakeQueue([batch]);
  const random = seeded(7);
  const finished: string[] = [];
  const posting = new Map<string, number>();
  let peak = 0;
  let overlapInGroup = false;
  const log = createMemoryLog();
  const forwarder = createForwarder({
    queue,
    // An endpoint responding in random order; the second "A" message fails.
    post: async (body) => {
      const group = body.split("-")[0]!;
      const inGroup = (posting.get(group) ?? 0) + 1;
      if (group !== "none" && inGroup > 1) overlapInGroup = true;
      posting.set(group, inGroup);
      peak = Math.max(peak, [...posting.values()].reduce((a, b) => a + b, 0));
      await new Promise((resolve) => setTimeout(resolve, random() * 30));
      posting.set(group, posting.get(group)! - 1);
      finished.push(body);
      if (body === "A-2") throw new Error("refused");
      return OK;
    },
    log,
  });
  const running = forwarder.run();
  await until(() => Promise.resolve(queue.deleted.length === 9));
  await forwarder.stop();
  await running;
  for (const group of ["A", "B", "C"]) {
    assert.deepEqual(
      finished.filter((body) => body.startsWith(`${group}-`)),
      batch.map((m) => m.body).filter((body) => body.startsWith(`${group}-`)),
      `order of group ${group}`,
    );
  }
  assert.equal(overlapInGroup, false);
  // Different groups, and messages without one, still go concurrently.
  assert.ok(peak >= 4, `peak ${peak}`);
  // The failed message is left in the queue; the next ones of its group are posted.
  assert.deepEqual(
    [...queue.deleted].sort(),
    batch.map((m) => m.id).filter((id) => id !== "A-2").sort(),
  );
  assert.match(log.at("ERROR")[0]!, /^Cannot post message A-2: refused/);
});

Deno.test("createForwarder() keeps posted messages invisible until their batch is deleted", async () => {
  const [first, second] = messages("g", 2, "g");
  const queue = createFakeQueue([[first!, second!]], 1);
  const forwarder = createForwarder({
    queue,
    // The first is posted at once, the second outlasts a heartbeat tick (~667 ms).
    post: async (body) => {
      if (body === "g1") {
        await until(() => Promise.resolve(queue.extended.length > 0));
      }
      return OK;
    },
    log: createMemoryLog(),
  });
  const running = forwarder.run();
  await until(() => Promise.resolve(queue.deleted.length === 2));
  await forwarder.stop();
  await running;
  assert.deepEqual(queue.extended, [["g0", "g1"]]);
});

Deno.test("createForwarder() deletes a group's messages when its chain ends, not with the slowest group", async () => {
  const queue = createFakeQueue([[
    ...messages("slow", 1, "slow"),
    ...messages("fast", 3, "fast"),
  ]]);
  const slow = Promise.withResolvers<PostReply>();
  const forwarder = createForwarder({
    queue,
    post: (body) => body === "slow0" ? slow.promise : Promise.resolve(OK),
    log: createMemoryLog(),
  });
  const running = forwarder.run();
  // The fast group is deleted while the slow group's post still runs.
  await until(() => Promise.resolve(queue.deleted.length === 3));
  assert.deepEqual(queue.deleted, ["fast0", "fast1", "fast2"]);
  slow.resolve(OK);
  await until(() => Promise.resolve(queue.deleted.length === 4));
  await forwarder.stop();
  await running;
});

Deno.test("createForwarder() deletes groups whose posts end together in one call", async () => {
  const groups = messages("g", 10).map((message) => ({
    ...message,
    groupId: message.id,
  }));
  const queue = createFakeQueue([groups]);
  const forwarder = createForwarder({
    queue,
    post: () => Promise.resolve(OK),
    log: createMemoryLog(),
  });
  const running = forwarder.run();
  await until(() => Promise.resolve(queue.deleted.length === 10));
  assert.equal(queue.deleteCalls.length, 1);
  await forwarder.stop();
  await running;
});

Deno.test("createForwarder() gathers the deletes of groups that end within the window, not the slow one's", async () => {
  const group = (id: string, index: number): QueueMessage => ({
    id,
    body: String(index * 20), // the post's time in ms
    receiptHandle: `r-${id}`,
    groupId: id,
  });
  const quick = ["q0", "q1", "q2"].map(group); // end at 0, 20 and 40 ms
  const slow = { ...group("slow", 0), body: "slow" };
  const queue = createFakeQueue([[slow, ...quick]]);
  const slowPost = Promise.withResolvers<PostReply>();
  const forwarder = createForwarder({
    queue,
    post: (body) =>
      body === "slow"
        ? slowPost.promise
        : new Promise((resolve) => setTimeout(() => resolve(OK), Number(body))),
    log: createMemoryLog(),
  });
  const running = forwarder.run();
  await until(() => Promise.resolve(queue.deleted.length === 3));
  // One call for the three quick groups, 40 ms apart, while the slow one still posts.
  assert.deepEqual(queue.deleteCalls, [["q0", "q1", "q2"]]);
  slowPost.resolve(OK);
  await until(() => Promise.resolve(queue.deleted.length === 4));
  assert.deepEqual(queue.deleteCalls.at(-1), ["slow"]);
  await forwarder.stop();
  await running;
});

Deno.test("createForwarder() deletes a group only after the visibility extension naming it", async () => {
  const events: string[] = [];
  const extension = Promise.withResolvers<void>();
  const queue = createFakeQueue([[
    ...messages("a", 1, "a"),
    ...messages("s", 1, "s"),
  ]], 1);
  const post = Promise.withResolvers<PostReply>();
  const forwarder = createForwarder({
    queue: {
      ...queue,
      async extendVisibility(batch) {
        events.push(`extend ${batch.map((m) => m.id)}`);
        await extension.promise;
        events.push("extend end");
        return [];
      },
      deleteBatch(batch) {
        events.push(`delete ${batch.map((m) => m.id)}`);
        return queue.deleteBatch(batch);
      },
    },
    // a waits for the first extension to start, then ends; s ends with the stop.
    post: (body, signal) =>
      body === "a0"
        ? post.promise
        : new Promise((_, reject) =>
          signal?.addEventListener("abort", () => reject(signal.reason))
        ),
    log: createMemoryLog(),
    settings: { shutdownTimeoutMs: 100 },
  });
  const running = forwarder.run();
  await until(() => Promise.resolve(events.length > 0));
  post.resolve(OK); // a's chain ends while the extension naming it is under way
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(events, ["extend a0,s0"], "a's delete waits");
  extension.resolve();
  await until(() => Promise.resolve(events.includes("delete a0")));
  assert.deepEqual(events.slice(0, 3), [
    "extend a0,s0",
    "extend end",
    "delete a0",
  ]);
  await forwarder.stop();
  await running;
  // After its delete, a is never named in an extension again.
  const after = events.slice(events.indexOf("delete a0"));
  assert.ok(
    after.every((event) => !/^extend .*a0/.test(event)),
    events.join("; "),
  );
});

Deno.test("createForwarder() posts nothing more once the stop has given up on the posts", async () => {
  const group = messages("g", 3, "g");
  const other = messages("h", 2, "h");
  const queue = createFakeQueue([group, other]);
  const log = createMemoryLog();
  const posted: string[] = [];
  const forwarder = createForwarder({
    queue,
    // Each post hangs until the forwarder aborts it.
    post: (body, signal) => {
      posted.push(body);
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise((_, reject) =>
        signal?.addEventListener("abort", () => reject(signal.reason))
      );
    },
    log,
    settings: { shutdownTimeoutMs: 50, receivers: 2 },
  });
  const running = forwarder.run();
  await until(() => Promise.resolve(posted.length === 2));
  await forwarder.stop();
  await running;
  assert.deepEqual(posted.toSorted(), ["g0", "h0"]);
  assert.deepEqual(log.at("INFO").toSorted(), ["g0", "h0"]);
  assert.deepEqual(log.at("ERROR"), []);
  assert.deepEqual(
    log.at("WARNING").filter((line) => line.includes("abandoned")).toSorted(),
    [
      "Post of message g0 abandoned at the stop; left in the queue",
      "Post of message h0 abandoned at the stop; left in the queue",
    ],
  );
  // One line for both batches.
  assert.deepEqual(
    log.at("WARNING").filter((line) => line.includes("not posted")),
    ["3 messages not posted before the stop: left in the queue"],
  );
  assert.deepEqual(queue.deleted, []);
});

Deno.test("createForwarder() backs off once for all receivers while the queue is down", async () => {
  const log = createMemoryLog();
  let receives = 0;
  const forwarder = createForwarder({
    queue: {
      visibilityTimeout: () => Promise.resolve(30),
      receive: () => {
        receives++;
        return Promise.reject(new Error("connection refused"));
      },
      deleteBatch: () => Promise.resolve([]),
      extendVisibility: () => Promise.resolve([]),
      setVisibility: () => Promise.resolve(),
    },
    post: () => Promise.resolve(OK),
    log,
    settings: {
      receivers: 10,
      backoff: { baseMs: 40, maxMs: 40, random: () => 0.999 },
    },
  });
  const running = forwarder.run();
  await new Promise((resolve) => setTimeout(resolve, 150));
  await forwarder.stop();
  await running;
  const errors = log.at("ERROR").length;
  // About four rounds of 40 ms in 150 ms, one ERROR line each; with a backoff per
  // receiver it was ten lines a round. At least one round even on a slow machine.
  assert.ok(errors >= 1 && errors <= 5, `${errors} ERROR lines`);
  assert.ok(receives >= 10 && receives <= 10 * (errors + 1), `${receives}`);
});
