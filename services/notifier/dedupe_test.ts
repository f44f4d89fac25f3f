import assert from "node:assert/strict";
import { createDedupe } from "./dedupe.ts";

Deno.test("createDedupe()", async (t) => {
  let now = 0;
  const dedupe = createDedupe(1000, () => now);
  await t.step("claims a key once within the window", () => {
    assert.equal(dedupe.claim("a"), true);
    now = 999;
    assert.equal(dedupe.claim("a"), false);
    assert.equal(dedupe.claim("b"), true);
  });
  await t.step("claims it again once the window has passed", () => {
    now = 1000;
    assert.equal(dedupe.claim("a"), true);
  });
  await t.step("a released key can be claimed at once", () => {
    dedupe.release("a");
    assert.equal(dedupe.claim("a"), true);
  });
  await t.step("a window of 0 claims everything", () => {
    const off = createDedupe(0, () => now);
    assert.equal(off.claim("a"), true);
    assert.equal(off.claim("a"), true);
  });
});
