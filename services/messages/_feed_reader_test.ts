import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createFeedBatches, type FilteredBatch } from "./_feed_batch.ts";
import { createFeedReader, type FeedReaderOptions } from "./_feed_reader.ts";
import type { MessageStore } from "./message_store.ts";
import { openSqliteMessageStore } from "./sqlite_message_store.ts";

/** A reader on an in-memory store, with one subscriber unless `alone`. */
function setup(
  options: Partial<FeedReaderOptions> & { alone?: boolean } = {},
) {
  const store = openSqliteMessageStore(":memory:");
  let changesAfterCalls = 0;
  const counted: MessageStore = {
    ...store,
    changesAfter: (seq, limit) => {
      changesAfterCalls++;
      return store.changesAfter(seq, limit);
    },
  };
  const log = createMemoryLog();
  const batches = createFeedBatches();
  const got: FilteredBatch[] = [];
  if (!options.alone) batches.join({}, { offer: (batch) => got.push(batch) });
  const reader = createFeedReader({
    store: counted,
    log,
    batches,
    keep: 10_000,
    writesPerSecond: 40_000,
    maxBatchMs: 25,
    ...options,
  });
  const create = async (count: number) => {
    for (let i = 0; i < count; i++) {
      await store.create({ author: "a", message: `m${i}` });
    }
  };
  return {
    store,
    log,
    reader,
    got,
    create,
    changesAfterCalls: () => changesAfterCalls,
    [Symbol.asyncDispose]: () => store.close(),
  };
}

const summary = (batches: FilteredBatch[]) =>
  batches.map((b) => ({
    seqs: b.events.map((e) => e.seq),
    last: b.last,
    reset: b.reset ?? false,
  }));

Deno.test("createFeedReader() notes where the changes stand first, then offers the new ones in one batch", async () => {
  await using s = setup();
  await s.create(2);
  assert.equal(s.reader.newest, undefined);
  await s.reader.read();
  assert.equal(s.reader.newest, 2);
  assert.deepEqual(s.got, []);
  await s.create(3);
  await s.reader.read();
  assert.deepEqual(summary(s.got), [{
    seqs: [3, 4, 5],
    last: 5,
    reset: false,
  }]);
  assert.equal(s.reader.newest, 5);
  // The revision has not moved: the store is not asked for changes.
  const calls = s.changesAfterCalls();
  await s.reader.read();
  assert.equal(s.changesAfterCalls(), calls);
  assert.equal(s.got.length, 1);
});

Deno.test("createFeedReader() asks for changes again after reread(), whatever the revision", async () => {
  await using s = setup();
  await s.reader.read();
  await s.create(1);
  await s.reader.read();
  const calls = s.changesAfterCalls();
  s.reader.reread();
  await s.reader.read();
  assert.equal(s.changesAfterCalls(), calls + 1);
  // Nothing new: nothing offered again.
  assert.deepEqual(summary(s.got), [{ seqs: [1], last: 1, reset: false }]);
});

Deno.test("createFeedReader() holds changes until the spacing its subscribers allow has passed", async () => {
  // One subscriber, 2 writes a second: a batch at most every 300 ms (maxBatchMs).
  await using s = setup({ writesPerSecond: 2, maxBatchMs: 300 });
  await s.reader.read();
  await s.create(1);
  await s.reader.read();
  await s.create(2);
  await s.reader.read();
  // Too soon: held.
  assert.equal(s.got.length, 1);
  assert.equal(s.reader.newest, 1);
  await new Promise((resolve) => setTimeout(resolve, 320));
  await s.reader.read();
  assert.deepEqual(summary(s.got), [
    { seqs: [1], last: 1, reset: false },
    { seqs: [2, 3], last: 3, reset: false },
  ]);
});

Deno.test("createFeedReader() offers a reset and logs it when changes it had not read are gone", async () => {
  await using s = setup();
  await s.reader.read();
  await s.create(3);
  // As another process with a smaller keep would, before this reader reads them.
  await s.store.forgetChanges(2);
  await s.reader.read();
  assert.deepEqual(summary(s.got), [{ seqs: [3], last: 3, reset: true }]);
  assert.deepEqual(s.log.at("WARNING"), [
    "messages change feed lost its place (changes 1 on are gone): its subscribers get a reset event",
  ]);
  await s.create(1);
  await s.reader.read();
  assert.deepEqual(summary(s.got).at(-1), { seqs: [4], last: 4, reset: false });
});

Deno.test("createFeedReader() forgets the changes older than the newest keep", async (t) => {
  await t.step("as it offers them", async () => {
    // keep 2, and 1 more (1%, at least 1) before forgetting.
    await using s = setup({ keep: 2 });
    await s.create(1);
    await s.reader.read();
    await s.create(2);
    await s.reader.read();
    assert.deepEqual(await s.store.changeRange(), { oldest: 1, newest: 3 });
    await s.create(1);
    await s.reader.read();
    assert.deepEqual(await s.store.changeRange(), { oldest: 3, newest: 4 });
  });
  await t.step("with no subscriber, offering nothing", async () => {
    await using s = setup({ keep: 2, alone: true });
    await s.reader.read();
    await s.create(5);
    await s.reader.read();
    assert.equal(s.reader.newest, 5);
    assert.equal(s.changesAfterCalls(), 0);
    assert.deepEqual(await s.store.changeRange(), { oldest: 4, newest: 5 });
  });
});
