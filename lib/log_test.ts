import assert from "node:assert/strict";
import { errorText } from "./log.ts";
import { createMemoryLog } from "./_test_memory_log.ts";

Deno.test("errorText() follows the cause chain without repeating a message", () => {
  const root = new Error("Connection refused");
  const mid = new Error("fetch failed", { cause: root });
  assert.equal(
    errorText(new Error("Cannot post", { cause: mid })),
    "Cannot post: fetch failed: Connection refused",
  );
  assert.equal(
    errorText(new Error("Cannot post: fetch failed", { cause: mid })),
    "Cannot post: fetch failed: Connection refused",
  );
  assert.equal(errorText("plain"), "plain");
});

Deno.test("createMemoryLog() records lines by level", () => {
  const log = createMemoryLog();
  log.info("a");
  log.error("b");
  assert.deepEqual(log.at("ERROR"), ["b"]);
  assert.deepEqual(log.entries, [{ level: "INFO", message: "a" }, {
    level: "ERROR",
    message: "b",
  }]);
});
