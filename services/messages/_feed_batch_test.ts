import assert from "node:assert/strict";
import {
  createFeedBatches,
  type FilteredBatch,
  filteredBytes,
  unseenBytes,
} from "./_feed_batch.ts";
import type { MessageChange } from "./message_store.ts";

const text = (bytes: Uint8Array | undefined) =>
  bytes === undefined ? undefined : new TextDecoder().decode(bytes);

/** A member keeping what it is offered. */
function member() {
  const got: FilteredBatch[] = [];
  return { got, offer: (batch: FilteredBatch) => void got.push(batch) };
}

const created = (seq: number, id: number, author: string): MessageChange => ({
  seq,
  kind: "created",
  record: { id, author, message: "m" },
});

/** A batch of the events `seqs`, ending at change `last`. */
function batch(seqs: number[], last: number): FilteredBatch {
  const events = seqs.map((seq) => ({
    seq,
    bytes: new TextEncoder().encode(`id: ${seq}\n\n`),
  }));
  const all = new TextEncoder().encode(
    seqs.map((s) => `id: ${s}\n\n`).join(""),
  );
  return { events, bytes: () => all, last };
}

Deno.test("createFeedBatches() offers one batch per filter, the same to each member of it", () => {
  const batches = createFeedBatches();
  const [a, b, bob] = [member(), member(), member()];
  batches.join({}, a);
  batches.join({}, b);
  batches.join({ author: ["bob"] }, bob);
  assert.equal(batches.members.size, 3);
  batches.offer([created(5, 1, "ada"), created(6, 2, "bob"), {
    seq: 7,
    kind: "created",
    record: { id: 3, author: "ada", message: "m" },
  }]);
  assert.equal(a.got.length, 1);
  // The very same batch object, so the very same bytes, for one filter.
  assert.equal(a.got[0], b.got[0]);
  assert.equal(a.got[0]!.bytes(), a.got[0]!.bytes());
  assert.deepEqual(a.got[0]!.events.map((e) => e.seq), [5, 6, 7]);
  assert.equal(text(a.got[0]!.bytes())!.match(/^event: created$/gm)?.length, 3);
  // bob's batch has bob's one event, and ends at the newest change all the same.
  const [bobs] = bob.got;
  assert.deepEqual(bobs!.events.map((e) => e.seq), [6]);
  assert.equal(bobs!.last, 7);
  assert.equal(bobs!.reset, undefined);
  assert.equal(
    text(bobs!.bytes()),
    'event: created\nid: 6\ndata: {"id":2,"author":"bob","message":"m"}\n\n',
  );
});

Deno.test("createFeedBatches() offers an empty batch to a filter no change matches", () => {
  const batches = createFeedBatches();
  const zed = member();
  batches.join({ author: ["zed"] }, zed);
  batches.offer([created(1, 1, "ada")]);
  assert.deepEqual(zed.got.map((b) => [b.events.length, b.last]), [[0, 1]]);
  assert.equal(zed.got[0]!.bytes().length, 0);
});

Deno.test("createFeedBatches() sends an update leaving a filter as deleted, one outside it not at all", () => {
  const batches = createFeedBatches();
  const bob = member();
  batches.join({ author: ["bob"] }, bob);
  const was = (author: string) => ({ id: 1, author, message: "m" });
  batches.offer([
    { seq: 1, kind: "updated", record: was("zed"), previous: was("bob") },
    { seq: 2, kind: "updated", record: was("ada"), previous: was("zed") },
    { seq: 3, kind: "updated", record: was("bob"), previous: was("ada") },
    { seq: 4, kind: "deleted", record: was("bob") },
  ]);
  assert.equal(
    text(bob.got[0]!.bytes()),
    'event: deleted\nid: 1\ndata: {"id":1}\n\n' +
      'event: updated\nid: 3\ndata: {"id":1,"author":"bob","message":"m"}\n\n' +
      'event: deleted\nid: 4\ndata: {"id":1}\n\n',
  );
});

Deno.test("createFeedBatches() join's returned function removes the member, once and for all", () => {
  const batches = createFeedBatches();
  const [a, b] = [member(), member()];
  const leaveA = batches.join({ author: ["ada"] }, a);
  const leaveB = batches.join({ author: ["ada"] }, b);
  leaveA();
  batches.offer([created(1, 1, "ada")]);
  assert.deepEqual([a.got.length, b.got.length], [0, 1]);
  leaveB();
  assert.equal(batches.members.size, 0);
  // The same filter again: offered the next changes, the members who left not.
  const c = member();
  batches.join({ author: ["ada"] }, c);
  // A member left twice changes nothing.
  leaveB();
  batches.offer([created(2, 2, "ada")]);
  assert.deepEqual([a.got.length, b.got.length, c.got.length], [0, 1, 1]);
  assert.equal(c.got[0]!.last, 2);
});

Deno.test("createFeedBatches() offers a reset to every member, whatever its filter", () => {
  const batches = createFeedBatches();
  const [a, bob] = [member(), member()];
  batches.join({}, a);
  batches.join({ author: ["bob"] }, bob);
  batches.offerReset(9);
  for (const { got } of [a, bob]) {
    assert.equal(got.length, 1);
    assert.equal(got[0]!.reset, true);
    assert.equal(got[0]!.last, 9);
    assert.equal(text(got[0]!.bytes()), "event: reset\nid: 9\ndata: {}\n\n");
  }
  assert.equal(a.got[0], bob.got[0]);
});

Deno.test("unseenBytes() sends only what the subscriber has not seen", async (t) => {
  const b = batch([3, 5, 6], 8);
  await t.step("all of the batch, its shared bytes, when none was seen", () => {
    assert.equal(unseenBytes(b, 2), b.bytes());
    assert.equal(unseenBytes(b, 0), b.bytes());
  });
  await t.step("the newer events when some were", () => {
    assert.equal(text(unseenBytes(b, 3)), "id: 5\n\nid: 6\n\n");
    assert.equal(text(unseenBytes(b, 5)), "id: 6\n\n");
  });
  await t.step("nothing when all its events or all its changes were", () => {
    assert.equal(unseenBytes(b, 6), undefined);
    assert.equal(unseenBytes(b, 8), undefined);
    assert.equal(unseenBytes(b, 20), undefined);
    assert.equal(unseenBytes(batch([], 8), 2), undefined);
  });
  await t.step("all of a reset, whatever was seen", () => {
    const reset = { ...batch([4], 4), reset: true };
    assert.equal(unseenBytes(reset, 20), reset.bytes());
    assert.equal(unseenBytes(reset, 0), reset.bytes());
  });
});

Deno.test("filteredBytes() joins the events of the matching changes, none when none matches", () => {
  const changes = [created(1, 1, "bob"), created(2, 2, "ada"), {
    seq: 3,
    kind: "deleted" as const,
    record: { id: 1, author: "bob", message: "m" },
  }];
  assert.equal(
    text(filteredBytes({ author: ["bob"] }, changes)),
    'event: created\nid: 1\ndata: {"id":1,"author":"bob","message":"m"}\n\n' +
      'event: deleted\nid: 3\ndata: {"id":1}\n\n',
  );
  assert.equal(filteredBytes({ author: ["zed"] }, changes), undefined);
  assert.equal(filteredBytes({}, []), undefined);
});
