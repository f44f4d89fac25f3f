/**
 * The `reader` role: the sensor reader program as a role. Reads a BeeWi BLE thermometer
 * once and prints `{"temperature":"21.5"}`, or ends silently after the time-out.
 *
 * ```sh
 * deno task start reader AA:BB:CC:DD:EE:FF
 * ```
 *
 * Layout: a role's folder imports `lib/`, `drivers/` and itself, never another role
 * (`tests/layout_test.ts` checks it).
 *
 * @module
 */
import { defineRole } from "../../lib/role.ts";
import { durationMs } from "../../lib/setting_kinds.ts";
import { readTemperature } from "../../drivers/ble/read_temperature.ts";
import { startReader } from "./start_reader.ts";

/** The settings of the `reader` role. */
export const readerSettings = {
  READER_TIMEOUT_MS: durationMs({
    description: "How long the reader scans before ending without output",
    default: 20_000,
    min: 1,
  }),
};

/**
 * Returns a function writing one line to `file`, synchronously and completely.
 *
 * The reading is the role's product, parsed by other programs, not a log line, so it
 * does not go through the logger; and `main.ts` exits the process as soon as `done`
 * resolves, so the write must be finished by then (hence `writeSync`, looped because
 * a write may be partial).
 */
function lineWriter(file: { writeSync(data: Uint8Array): number }) {
  const encoder = new TextEncoder();
  return (line: string) => {
    let data = encoder.encode(`${line}\n`);
    while (data.length > 0) data = data.subarray(file.writeSync(data));
  };
}

/** The `reader` role descriptor. */
export const readerRole = defineRole({
  name: "reader",
  summary:
    'Reads a BeeWi Bluetooth thermometer once and prints {"temperature":"21.5"}',
  usage: "reader ADDRESS",
  maxArgs: 1,
  runsAlone: true,
  settings: readerSettings,
  start(settings, { args, log }) {
    return Promise.resolve(startReader({
      address: args[0],
      timeoutMs: settings.READER_TIMEOUT_MS,
      read: readTemperature,
      write: lineWriter(Deno.stdout),
      writeError: lineWriter(Deno.stderr),
      log,
    }));
  },
});
