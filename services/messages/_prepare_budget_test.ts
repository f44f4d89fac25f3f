import assert from "node:assert/strict";
import { createPrepareBudget } from "./_prepare_budget.ts";

Deno.test("createPrepareBudget() prepares the first max texts only, those for good", () => {
  const shouldPrepare = createPrepareBudget(2);
  assert.equal(shouldPrepare("a"), true);
  assert.equal(shouldPrepare("b"), true);
  assert.equal(shouldPrepare("c"), false);
  assert.equal(shouldPrepare("a"), true);
  assert.equal(shouldPrepare("b"), true);
  assert.equal(shouldPrepare("c"), false);
});
