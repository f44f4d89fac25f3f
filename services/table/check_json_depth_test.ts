import assert from "node:assert/strict";
import { checkJsonDepth, JsonTooDeepError } from "./check_json_depth.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("checkJsonDepth() passes JSON text nested up to maxDepth", () => {
  checkJsonDepth(bytes('[[{"a": [1]}], {"b": {}}]'), 4);
  checkJsonDepth(bytes("42"), 0);
  checkJsonDepth(bytes("[".repeat(10_000) + "]".repeat(10_000)), 10_000);
});

Deno.test("checkJsonDepth() throws JsonTooDeepError past maxDepth", () => {
  for (const text of ['[[{"a": [1]}]]', "{{{{{", "[".repeat(10_001)]) {
    const maxDepth = text.startsWith("[[[[[") ? 10_000 : 3;
    assert.throws(
      () => checkJsonDepth(bytes(text), maxDepth),
      (error: unknown) =>
        error instanceof JsonTooDeepError && error.code === "JSON_TOO_DEEP" &&
        error.maxDepth === maxDepth,
      text.slice(0, 20),
    );
  }
});

Deno.test("checkJsonDepth() does not count brackets in strings", () => {
  checkJsonDepth(bytes('["[[[[", "{{{{\\"[[[[", "\\\\", "]]]]"]'), 1);
  assert.throws(
    () => checkJsonDepth(bytes('["\\\\", [[1]]]'), 2),
    JsonTooDeepError,
  );
});
