import assert from "node:assert/strict";
import { createTokenCheck } from "./token_check.ts";

Deno.test("createTokenCheck() accepts only the exact token", () => {
  const isToken = createTokenCheck("abc");
  assert.equal(isToken("abc"), true);
  for (const wrong of ["abd", "ab", "abcabc", "", "ABC", "abc "]) {
    assert.equal(isToken(wrong), false, `"${wrong}"`);
  }
});
