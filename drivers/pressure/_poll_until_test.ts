import assert from "node:assert/strict";
import { pollUntil } from "./_poll_until.ts";

const options = { intervalMs: 5, attempts: 3, failure: "Chip not ready" };

Deno.test("pollUntil() returns once ready, waiting after each miss", async () => {
  const waits: number[] = [];
  let checks = 0;
  await pollUntil(() => ++checks === 3, (ms) => {
    waits.push(ms);
    return Promise.resolve();
  }, options);
  assert.equal(checks, 3);
  assert.deepEqual(waits, [5, 5]);
});

Deno.test("pollUntil() throws the failure after its attempts", async () => {
  const waits: number[] = [];
  await assert.rejects(
    pollUntil(() => false, (ms) => {
      waits.push(ms);
      return Promise.resolve();
    }, options),
    { message: "Chip not ready" },
  );
  assert.deepEqual(waits, [5, 5, 5]);
});
