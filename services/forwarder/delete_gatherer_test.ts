import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createDeleteGatherer } from "./delete_gatherer.ts";
import { messages } from "./_test_queue.ts";

Deno.test("createDeleteGatherer() sends what comes within the window in one call", () => {
  const clock = FakeTimers.install({ now: 0 });
  try {
    const sent: string[][] = [];
    const gatherer = createDeleteGatherer({
      windowMs: 50,
      maxBatch: 10,
      send: (batch) => sent.push(batch.map((message) => message.id)),
    });
    const [a, b, c] = [messages("a", 2), messages("b", 1), messages("c", 1)];
    gatherer.add(a);
    clock.tick(30);
    gatherer.add(b);
    gatherer.add([]);
    assert.deepEqual(sent, []);
    clock.tick(20); // 50 ms after the first addition
    assert.deepEqual(sent, [["a0", "a1", "b0"]]);
    gatherer.add(c);
    gatherer.flush(); // at once, not after the window
    assert.deepEqual(sent, [["a0", "a1", "b0"], ["c0"]]);
    clock.tick(100);
    gatherer.flush();
    assert.equal(sent.length, 2, "nothing left to send");
  } finally {
    clock.uninstall();
  }
});

Deno.test("createDeleteGatherer() splits what it gathered into calls of maxBatch", () => {
  const sent: number[] = [];
  const gatherer = createDeleteGatherer({
    windowMs: 50,
    maxBatch: 10,
    send: (batch) => sent.push(batch.length),
  });
  gatherer.add(messages("x", 23));
  gatherer.flush();
  assert.deepEqual(sent, [10, 10, 3]);
});
