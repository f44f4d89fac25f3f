import assert from "node:assert/strict";
import { groupChains } from "./group_chains.ts";
import type { QueueMessage } from "./sqs_queue.ts";

const message = (id: string, groupId?: string): QueueMessage => ({
  id,
  body: id,
  receiptHandle: `r-${id}`,
  ...(groupId === undefined ? {} : { groupId }),
});

Deno.test("groupChains()", async (t) => {
  await t.step("chains the messages of a group in receive order", () => {
    const [a1, b1, a2, b2, a3] = [
      message("a1", "a"),
      message("b1", "b"),
      message("a2", "a"),
      message("b2", "b"),
      message("a3", "a"),
    ];
    assert.deepEqual(groupChains([a1!, b1!, a2!, b2!, a3!]), [
      [a1, a2, a3],
      [b1, b2],
    ]);
  });

  await t.step("gives each message without a group its own chain", () => {
    const [x, a1, y, a2] = [
      message("x"),
      message("a1", "a"),
      message("y"),
      message("a2", "a"),
    ];
    assert.deepEqual(groupChains([x!, a1!, y!, a2!]), [[x], [a1, a2], [y]]);
  });

  await t.step("returns no chain for no message", () => {
    assert.deepEqual(groupChains([]), []);
  });
});
