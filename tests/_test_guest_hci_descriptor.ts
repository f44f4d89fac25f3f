/**
 * Run inside the kernel suite's guest (with `--v8-flags=--expose-gc`): scans on a real
 * HCI adapter, opens a file after each scan, collects garbage, and tells whether a
 * file was closed under its user. Prints one line, `descriptors <mode>: kept` or
 * `descriptors <mode>: closed under its user: <error>`.
 *
 * - `bluetooth`: three scans on one {@linkcode createNobleBluetooth}, as the roles scan;
 * - `stopped`: three noble instances each stopped after its scan (what homewire did
 *   before), showing `@stoprocent/bluetooth-hci-socket`'s second close.
 *
 * ```sh
 * deno run -A --v8-flags=--expose-gc tests/_test_guest_hci_descriptor.ts bluetooth
 * ```
 *
 * @module
 */
import { createLog } from "../lib/log.ts";
import { createNobleBluetooth } from "../drivers/ble/noble_scanner.ts";

const mode = Deno.args[0] ?? "bluetooth";
const log = createLog("descriptors");
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

async function scanWithBluetooth(
  bluetooth: ReturnType<typeof createNobleBluetooth>,
) {
  const scanner = await bluetooth.scanner();
  await scanner.start(() => {});
  await sleep(1500);
  await scanner.close();
}

async function scanAndStop() {
  const { withBindings } = await import("@stoprocent/noble");
  let noble: ReturnType<typeof withBindings> | undefined = withBindings(
    "default",
  );
  await noble.waitForPoweredOnAsync(10_000);
  await noble.startScanningAsync([], true);
  await sleep(1500);
  await noble.stopScanningAsync();
  noble.stop();
  noble = undefined;
}

const files: Deno.FsFile[] = [];
const bluetooth = createNobleBluetooth({ log });
for (let pass = 0; pass < 3; pass++) {
  if (mode === "stopped") await scanAndStop();
  else await scanWithBluetooth(bluetooth);
  const path = `/tmp/descriptor-${mode}-${pass}`;
  files.push(
    await Deno.open(path, { create: true, write: true, read: true }),
  );
}
for (let i = 0; i < 5; i++) {
  gc();
  await sleep(500);
}
let verdict = "kept";
for (const [pass, file] of files.entries()) {
  try {
    await file.write(new TextEncoder().encode(`pass ${pass}\n`));
    await file.stat();
  } catch (error) {
    verdict = `closed under its user: file of pass ${pass}: ${error}`;
    break;
  }
}
console.log(`descriptors ${mode}: ${verdict}`);
Deno.exit(0);
