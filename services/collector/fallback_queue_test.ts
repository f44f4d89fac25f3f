import assert from "node:assert/strict";
import { withMemoryFallback } from "./fallback_queue.ts";
import { openPointQueue, type PointQueue } from "./point_queue.ts";

/** An in-memory queue that throws `error` from every call but `close` once broken. */
function breakable(error: Error) {
  const inner = openPointQueue(":memory:");
  const state = { broken: false, closed: false };
  const check = () => {
    if (state.broken) throw error;
  };
  const queue: PointQueue = {
    add: (lines) => (check(), inner.add(lines)),
    oldest: (limit) => (check(), inner.oldest(limit)),
    removeThrough: (last) => (check(), inner.removeThrough(last)),
    dropOldest: (count) => (check(), inner.dropOldest(count)),
    get size() {
      check();
      return inner.size;
    },
    close: () => {
      state.closed = true;
    },
  };
  return { queue, inner, state };
}

Deno.test("withMemoryFallback() goes on in memory once the file fails, reporting it once", () => {
  const full = new Error("database or disk is full");
  const file = breakable(full);
  const failures: unknown[] = [];
  const queue = withMemoryFallback(file.queue, (error) => failures.push(error));
  queue.add(["a 1"]);
  const [kept] = queue.oldest(10);
  file.state.broken = true;
  queue.add(["b 2", "c 3"]);
  assert.deepEqual(failures, [full]);
  assert.equal(file.state.closed, true);
  // A point read from the file before it failed stays in it for the next start.
  queue.removeThrough(kept!);
  assert.deepEqual(file.inner.oldest(10).map((p) => p.line), ["a 1"]);
  assert.deepEqual(queue.oldest(10).map((p) => p.line), ["b 2", "c 3"]);
  const [b] = queue.oldest(1);
  queue.removeThrough(b!);
  assert.equal(queue.size, 1);
  queue.dropOldest(1);
  assert.equal(queue.size, 0);
  assert.equal(failures.length, 1);
});
