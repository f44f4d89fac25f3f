import assert from "node:assert/strict";
import { createMemoryLog } from "../lib/_test_memory_log.ts";
import { type ConsoleLike, routeConsoleToLog } from "./console_to_log.ts";

Deno.test("routeConsoleToLog() sends console output to the log, errors without their stack", () => {
  const log = createMemoryLog();
  const target = {} as ConsoleLike;
  routeConsoleToLog(log, target);
  target.error(
    "Deno.serve failed:",
    new Error("stream broke", { cause: new Error("reset") }),
  );
  target.warn({ a: 1 });
  target.log("plain", 2);
  target.debug("detail");
  assert.deepEqual(log.at("ERROR"), ["Deno.serve failed: stream broke: reset"]);
  assert.deepEqual(log.at("WARNING"), ["{ a: 1 }"]);
  assert.deepEqual(log.at("INFO"), ["plain 2"]);
  assert.deepEqual(log.at("DEBUG"), ["detail"]);
});
