import assert from "node:assert/strict";
import { reset } from "@logtape/logtape";
import { createLog, errorText } from "./log.ts";
import { configureLogging } from "./logging.ts";
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

Deno.test("createLog().enabled() follows the configured level", async () => {
  const lines: string[] = [];
  const log = createLog("log-test");
  try {
    await configureLogging({
      level: "WARNING",
      format: "text",
      write: (line) => lines.push(line),
    });
    assert.deepEqual(
      (["debug", "info", "warn", "error"] as const).map((level) =>
        log.enabled?.(level)
      ),
      [false, false, true, true],
    );
    await configureLogging({
      level: "DEBUG",
      format: "text",
      write: (line) => lines.push(line),
    });
    assert.equal(log.enabled?.("debug"), true);
    log.debug("seen");
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /DEBUG.*seen/);
  } finally {
    await reset();
  }
});
