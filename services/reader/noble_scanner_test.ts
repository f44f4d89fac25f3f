import assert from "node:assert/strict";
import process from "node:process";
import { createMemoryLog } from "../../lib/log.ts";
import { createNobleScanner } from "./noble_scanner.ts";

Deno.test("createNobleScanner() loads noble in Deno and reports a missing adapter clearly", async () => {
  const log = createMemoryLog();
  const originalLog = console.log;
  const sigintListeners = process.listeners("SIGINT").length;
  const scanner = await createNobleScanner({ log });
  try {
    // CI and this machine have no Bluetooth adapter; with one, start() succeeds.
    const outcome = await scanner.start(() => {}).then(
      () => "scanning",
      (error: Error) => error.message,
    );
    assert.match(
      outcome,
      /^(scanning|Bluetooth is unavailable: .+ \(adapter state "(unsupported|unauthorized|poweredOff)"\))$/,
    );
    assert.equal(
      process.listeners("SIGINT").length,
      sigintListeners,
      "noble's exiting SIGINT handler is removed",
    );
  } finally {
    await scanner.close();
  }
  assert.equal(console.log, originalLog, "console.log is restored on close");
  await assert.rejects(
    scanner.start(() => {}),
    /The Bluetooth scanner is closed/,
  );
});
