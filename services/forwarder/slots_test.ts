import assert from "node:assert/strict";
import { createSlots } from "./slots.ts";

Deno.test("createSlots()", async (t) => {
  await t.step("take() waits until enough slots are given back", async () => {
    const slots = createSlots(10);
    assert.equal(await slots.take(8), true);
    let second = false;
    const waiting = slots.take(5).then((ok) => second = ok);
    await Promise.resolve();
    assert.equal(second, false);
    slots.give(3);
    await waiting;
    assert.equal(second, true);
    assert.equal(slots.taken, 10);
  });

  await t.step("take() serves waiters in call order", async () => {
    const slots = createSlots(2);
    await slots.take(2);
    const order: string[] = [];
    const a = slots.take(2).then(() => order.push("a"));
    const b = slots.take(1).then(() => order.push("b"));
    slots.give(1);
    await Promise.resolve();
    assert.deepEqual(order, []);
    slots.give(1);
    await a;
    slots.give(2);
    await b;
    assert.deepEqual(order, ["a", "b"]);
  });

  await t.step(
    "take() resolves false and takes nothing when aborted",
    async () => {
      const slots = createSlots(1);
      await slots.take(1);
      const controller = new AbortController();
      const waiting = slots.take(1, controller.signal);
      controller.abort();
      assert.equal(await waiting, false);
      assert.equal(slots.taken, 1);
      assert.equal(await slots.take(1, controller.signal), false);
    },
  );
});
