import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import {
  createBrowserOpener,
  openerCommand,
  runQuietly,
} from "./open_browser.ts";

const URL_ = "http://127.0.0.1:3838/";

Deno.test("openerCommand() picks the platform's opener", () => {
  assert.deepEqual(openerCommand("linux", URL_), ["xdg-open", [URL_]]);
  assert.deepEqual(openerCommand("darwin", URL_), ["open", [URL_]]);
  assert.deepEqual(openerCommand("windows", URL_), ["cmd", [
    "/c",
    "start",
    '""',
    URL_,
  ]]);
});

Deno.test("createBrowserOpener() runs the opener and logs at INFO on success", async () => {
  const log = createMemoryLog();
  const calls: [string, string[]][] = [];
  await createBrowserOpener({
    log,
    os: "darwin",
    run: (command, args) => {
      calls.push([command, args]);
      return Promise.resolve(0);
    },
  })(URL_);
  assert.deepEqual(calls, [["open", [URL_]]]);
  assert.equal(log.at("WARNING").length, 0);
  assert.equal(log.at("INFO").length, 1);
});

Deno.test("createBrowserOpener() logs a WARNING when the opener fails", async (t) => {
  await t.step("non-zero exit", async () => {
    const log = createMemoryLog();
    await createBrowserOpener({
      log,
      os: "linux",
      run: () => Promise.resolve(3),
    })(URL_);
    assert.match(
      log.at("WARNING")[0]!,
      /"xdg-open" exited with code 3; open http:\/\/127\.0\.0\.1:3838\/ yourself/,
    );
  });
  await t.step("a real missing command", async () => {
    const log = createMemoryLog();
    await createBrowserOpener({
      log,
      os: "linux",
      run: (_command, args) => runQuietly("/nonexistent/xdg-open", args),
    })(URL_);
    assert.match(
      log.at("WARNING")[0]!,
      /^Cannot open a browser with "xdg-open": /,
    );
  });
});
