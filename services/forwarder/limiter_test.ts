import assert from "node:assert/strict";
import { createLimiter } from "./limiter.ts";

Deno.test("createLimiter() never runs more than its slots at once", async () => {
  const limiter = createLimiter(3);
  let running = 0;
  let peak = 0;
  const order: number[] = [];
  await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      limiter.run(async () => {
        running++;
        peak = Math.max(peak, running);
        order.push(i);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running--;
      })),
  );
  assert.equal(peak, 3);
  assert.deepEqual(order, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(limiter.active, 0);
});

Deno.test("createLimiter() frees the slot of a task that rejects", async () => {
  const limiter = createLimiter(1);
  await assert.rejects(limiter.run(() => Promise.reject(new Error("boom"))));
  assert.equal(await limiter.run(() => Promise.resolve(7)), 7);
});
