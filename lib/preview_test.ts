import assert from "node:assert/strict";
import { preview } from "./preview.ts";

Deno.test("preview() keeps short text and cuts long text by code points", () => {
  assert.equal(preview("short"), "short");
  assert.equal(preview("x".repeat(80)), "x".repeat(80));
  assert.equal(preview("x".repeat(81)), `${"x".repeat(80)}...`);
  assert.equal(preview("😀".repeat(3), 2), "😀😀...");
  assert.equal(preview("😀".repeat(2), 2), "😀😀");
});
