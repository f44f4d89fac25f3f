import assert from "node:assert/strict";
import process from "node:process";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { linuxHasNoAdapter } from "./_adapter_state.ts";
import {
  createNobleScanner,
  type NobleScannerOptions,
} from "./noble_scanner.ts";

/** Whether this machine has no Bluetooth adapter (CI and the development machine). */
const NO_ADAPTER = await linuxHasNoAdapter("/sys/class/bluetooth");

/** The outcome of one `start()`: "scanning" or the error message. */
async function startOutcome(
  options: Omit<NobleScannerOptions, "log"> = {},
): Promise<string> {
  const scanner = await createNobleScanner({
    log: createMemoryLog(),
    ...options,
  });
  try {
    return await scanner.start(() => {}).then(
      () => "scanning",
      (error: Error) => error.message,
    );
  } finally {
    await scanner.close();
  }
}

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
  // noble stays loaded for the process: its console lines keep going to the log.
  console.log("noble: a library warning");
  console.log = originalLog;
  assert.ok(
    log.at("DEBUG").includes("Bluetooth: noble: a library warning"),
    JSON.stringify(log.entries),
  );
  await assert.rejects(
    scanner.start(() => {}),
    /The Bluetooth scanner is closed/,
  );
});

Deno.test({
  name: "createNobleScanner() says no adapter was found when Linux lists none",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const sysfs = await Deno.makeTempDir({ prefix: "homewire-sysfs-" });
    try {
      assert.equal(
        await startOutcome({ adaptersDir: `${sysfs}/bluetooth` }),
        `Bluetooth is unavailable: no Bluetooth adapter found in ${sysfs}/bluetooth (adapter state "unsupported")`,
      );
    } finally {
      await Deno.remove(sysfs, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "createNobleScanner() without an adapter reports noble's settled state, not its passing poweredOff",
  // Needs a machine without an adapter; the adapter list is faked so noble is asked.
  ignore: !NO_ADAPTER,
  async fn() {
    const sysfs = await Deno.makeTempDir({ prefix: "homewire-sysfs-" });
    try {
      await Deno.mkdir(`${sysfs}/bluetooth/hci0`, { recursive: true });
      assert.equal(
        await startOutcome({ adaptersDir: `${sysfs}/bluetooth` }),
        'Bluetooth is unavailable: no Bluetooth LE adapter found (adapter state "unsupported")',
      );
    } finally {
      await Deno.remove(sysfs, { recursive: true });
    }
  },
});
