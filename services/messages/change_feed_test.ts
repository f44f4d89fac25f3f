import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { type ChangeFeedOptions, createChangeFeed } from "./change_feed.ts";
import { openSqliteMessageStore } from "./sqlite_message_store.ts";
import { readEvents } from "./_test_events.ts";
import type { MessageFilter } from "./list_query.ts";

function setup(options: Partial<ChangeFeedOptions> = {}) {
  const store = openSqliteMessageStore(":memory:");
  const feed = createChangeFeed({
    store,
    log: createMemoryLog(),
    pollMs: 1,
    ...options,
  });
  const subscribe = (filter: MessageFilter = {}, lastEventId?: number) =>
    readEvents(feed.subscribe(filter, lastEventId));
  return {
    store,
    feed,
    subscribe,
    async [Symbol.asyncDispose]() {
      feed.close();
      await store.close();
    },
  };
}

const json = (data: string) => JSON.parse(data);

Deno.test("createChangeFeed() sends created, updated and deleted in order, with ids", async () => {
  await using s = setup();
  const events = s.subscribe();
  // The stream starts with retry: and the id to resume from.
  await waitUntil(() => s.feed.subscribers === 1);
  await s.store.create({ author: "ada", message: "one" });
  await s.store.create({ author: "bob", message: "two" });
  await s.store.update(1, { message: "uno" });
  await s.store.delete(2);
  const got = await events.take(4);
  assert.deepEqual(got.map((e) => [e.event, e.id, json(e.data)]), [
    ["created", "1", { id: 1, author: "ada", message: "one" }],
    ["created", "2", { id: 2, author: "bob", message: "two" }],
    ["updated", "3", { id: 1, author: "ada", message: "uno" }],
    ["deleted", "4", { id: 2 }],
  ]);
  assert.equal(events.retry, "2000");
  await events.cancel();
  await waitUntil(() => s.feed.subscribers === 0);
});

Deno.test("createChangeFeed() applies the list filter, a record leaving it is deleted", async () => {
  await using s = setup();
  const bob = s.subscribe({ authorLike: ["bo"] });
  await waitUntil(() => s.feed.subscribers === 1);
  await s.store.create({ author: "Bob", message: "a" }); // 1
  await s.store.create({ author: "ada", message: "b" }); // 2
  await s.store.update(2, { message: "c" }); // 3: not bob's
  await s.store.update(1, { author: "zed" }); // 4: leaves the filter
  await s.store.update(2, { author: "bobby" }); // 5: enters it
  await s.store.delete(2); // 6
  const got = await bob.take(4);
  assert.deepEqual(got.map((e) => [e.event, e.id, json(e.data)]), [
    ["created", "1", { id: 1, author: "Bob", message: "a" }],
    ["deleted", "4", { id: 1 }],
    ["updated", "5", { id: 2, author: "bobby", message: "c" }],
    ["deleted", "6", { id: 2 }],
  ]);
  await bob.cancel();
});

Deno.test("createChangeFeed() resumes after Last-Event-ID, then goes on live", async () => {
  await using s = setup();
  for (let i = 1; i <= 5; i++) {
    await s.store.create({ author: "a", message: `m${i}` });
  }
  const resumed = s.subscribe({}, 2);
  const first = await resumed.take(3);
  assert.deepEqual(first.map((e) => e.id), ["3", "4", "5"]);
  await s.store.create({ author: "a", message: "m6" });
  assert.equal((await resumed.next()).id, "6");
  await resumed.cancel();
  // Nothing missed and nothing new: no event, the resume point stays.
  const current = s.subscribe({}, 6);
  await assert.rejects(() => current.next(100), /no event/);
  await current.cancel();
});

Deno.test("createChangeFeed() starts with reset when the change is no longer kept", async () => {
  await using s = setup({ keep: 3 });
  const watcher = s.subscribe();
  await waitUntil(() => s.feed.subscribers === 1);
  for (let i = 1; i <= 10; i++) {
    await s.store.create({ author: "a", message: `m${i}` });
  }
  assert.equal((await watcher.take(10)).at(-1)!.id, "10");
  await waitUntil(async () => (await s.store.changeRange()).oldest >= 7);
  const old = s.subscribe({}, 2);
  const reset = await old.next();
  assert.equal(reset.event, "reset");
  assert.equal(reset.id, "10");
  await s.store.create({ author: "a", message: "m11" });
  assert.equal((await old.next()).id, "11");
  // Still kept: resumed without reset.
  const kept = s.subscribe({}, 8);
  assert.deepEqual((await kept.take(3)).map((e) => e.id), ["9", "10", "11"]);
  // From another database's numbering (ahead of this one): reset.
  const ahead = s.subscribe({}, 500);
  assert.equal((await ahead.next()).event, "reset");
  for (const r of [watcher, old, kept, ahead]) await r.cancel();
});

Deno.test("createChangeFeed() closes a subscriber that does not read past its queue", async () => {
  await using s = setup({ queueBytes: 4096 });
  const slow = s.feed.subscribe({}, undefined);
  const reader = readEvents(s.feed.subscribe({}, undefined));
  await waitUntil(() => s.feed.subscribers === 2);
  for (let i = 1; i <= 100; i++) {
    await s.store.create({ author: "a", message: "x".repeat(100) });
  }
  // A burst may pass the bound; a subscriber still past it at the next change is
  // dropped, its queue freed, while the one reading gets everything.
  assert.equal((await reader.take(100)).at(-1)!.id, "100");
  assert.equal(s.feed.subscribers, 2);
  await s.store.create({ author: "a", message: "next" });
  assert.equal((await reader.next()).id, "101");
  await waitUntil(() => s.feed.subscribers === 1);
  await assert.rejects(() => slow.getReader().read(), /too slow/);
  await reader.cancel();
});

Deno.test("createChangeFeed() sends a batch in one write, the same bytes to subscribers of one filter", async () => {
  await using s = setup();
  const [a, b, bob] = [{}, {}, { author: ["bob"] }].map((filter) =>
    s.feed.subscribe(filter, undefined).getReader()
  );
  // Each stream's start: retry: and the id to resume from.
  for (const reader of [a!, b!, bob!]) await readChunk(reader);
  // Written before the feed's next poll: one batch.
  await s.store.create({ author: "ada", message: "one" });
  await s.store.create({ author: "bob", message: "two" });
  await s.store.create({ author: "ada", message: "three" });
  const [chunkA, chunkB, chunkBob] = await Promise.all(
    [a!, b!, bob!].map(async (reader) => (await readChunk(reader))),
  );
  const text = (chunk: Uint8Array) => new TextDecoder().decode(chunk);
  assert.equal(text(chunkA!).match(/^event: created$/gm)?.length, 3);
  // Not equal bytes: the very same array, encoded once for both.
  assert.equal(chunkA, chunkB);
  assert.equal(
    text(chunkBob!),
    'event: created\nid: 2\ndata: {"id":2,"author":"bob","message":"two"}\n\n',
  );
  for (const reader of [a!, b!, bob!]) await reader.cancel();
});

Deno.test("createChangeFeed() spaces its batches to keep writes under writesPerSecond", async () => {
  // One subscriber, 2 writes a second: a batch at most every 500 ms.
  await using s = setup({ writesPerSecond: 2, maxBatchMs: 1000 });
  const reader = s.feed.subscribe({}, undefined).getReader();
  await readChunk(reader);
  await s.store.create({ author: "a", message: "first" });
  // After a quiet spell, a change goes out at once.
  const first = new TextDecoder().decode(await readChunk(reader));
  assert.match(first, /^id: 1$/m);
  for (let i = 0; i < 5; i++) {
    await s.store.create({ author: "a", message: `m${i}` });
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  // The feed polls every ms: unspaced, these would be 5 writes.
  const next = new TextDecoder().decode(await readChunk(reader));
  assert.equal(next.match(/^event: created$/gm)?.length, 5, next);
  await reader.cancel();
});

Deno.test("createChangeFeed() sends reset when changes it had not read were forgotten", async () => {
  await using s = setup();
  const events = s.subscribe();
  await events.opened();
  await s.store.create({ author: "a", message: "one" });
  await s.store.create({ author: "a", message: "two" });
  await s.store.create({ author: "a", message: "three" });
  // As another process would, with a smaller keep, before this feed reads them.
  await s.store.forgetChanges(2);
  const reset = await events.next();
  assert.deepEqual([reset.event, reset.id], ["reset", "3"]);
  await s.store.create({ author: "a", message: "four" });
  const next = await events.next();
  assert.deepEqual([next.event, next.id], ["created", "4"]);
  await events.cancel();
});

Deno.test("createChangeFeed() sends reset when the numbering of the changes goes back", async () => {
  const dir = await Deno.makeTempDir({ prefix: "change-feed-rewind-" });
  const path = `${dir}/messages.sqlite3`;
  const store = openSqliteMessageStore(path);
  const feed = createChangeFeed({ store, log: createMemoryLog(), pollMs: 1 });
  try {
    const events = readEvents(feed.subscribe({}, undefined));
    await events.opened();
    for (const message of ["one", "two", "three"]) {
      await store.create({ author: "a", message });
    }
    assert.equal((await events.take(3)).at(-1)!.id, "3");
    // Another tool empties the change table and its numbering.
    const other = new DatabaseSync(path);
    other.exec(`DELETE FROM message_changes;
      DELETE FROM sqlite_sequence WHERE name = 'message_changes'`);
    other.close();
    const reset = await events.next();
    assert.deepEqual([reset.event, reset.id], ["reset", "0"]);
    await store.create({ author: "a", message: "four" });
    const next = await events.next();
    assert.deepEqual([next.event, next.id], ["created", "1"]);
    await events.cancel();
  } finally {
    feed.close();
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("createChangeFeed() reads at once when woken by a write", async () => {
  // The poll would not come within the test.
  await using s = setup({ pollMs: 60_000 });
  const events = s.subscribe();
  await events.opened();
  await s.store.create({ author: "a", message: "one" });
  s.feed.wake();
  const created = await events.next(1000);
  assert.deepEqual([created.event, created.id], ["created", "1"]);
  await events.cancel();
});

Deno.test("createChangeFeed() sends a comment line to idle streams", async () => {
  await using s = setup({ heartbeatMs: 20 });
  const idle = s.subscribe();
  await waitUntil(() => idle.comments === 0 && s.feed.subscribers === 1);
  await assert.rejects(() => idle.next(120), /no event/);
  assert.ok(idle.comments >= 2, `${idle.comments} comments`);
  await idle.cancel();
});

Deno.test("createChangeFeed() ends every stream on close", async () => {
  const store = openSqliteMessageStore(":memory:");
  const feed = createChangeFeed({ store, log: createMemoryLog(), pollMs: 1 });
  const events = readEvents(feed.subscribe({}, undefined));
  await waitUntil(() => feed.subscribers === 1);
  feed.close();
  await assert.rejects(() => events.next(), /stream ended/);
  await store.close();
});

/**
 * The next chunk of a stream; a timer keeps the test alive meanwhile (the feed's
 * own timers do not).
 */
async function readChunk(
  reader: ReadableStreamDefaultReader<Uint8Array>,
): Promise<Uint8Array> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("no chunk in time")), 3000);
  });
  try {
    const { value } = await Promise.race([reader.read(), timeout]);
    if (value === undefined) throw new Error("stream ended");
    return value;
  } finally {
    clearTimeout(timer);
  }
}

async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 3000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!await check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
