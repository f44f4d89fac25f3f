/**
 * The reader program's behaviour: one thermometer reading printed as one JSON line.
 *
 * @module
 */
import { errorText, type Log } from "../../lib/log.ts";
import { EXIT_USAGE, type RunningRole } from "../../lib/role.ts";
import { normalizeBluetoothAddress } from "../../drivers/ble/bluetooth_address.ts";
import type { readTemperature } from "../../drivers/ble/read_temperature.ts";

/** The usage line printed when the address is missing or malformed. */
export const READER_USAGE = "Usage: deno task start reader <address>";

/** What {@linkcode startReader} needs. */
export interface ReaderOptions {
  /** The thermometer's Bluetooth address, as given on the command line. */
  address: string | undefined;
  /** How long to scan before ending silently. */
  timeoutMs: number;
  /** Takes the reading. */
  read: typeof readTemperature;
  /** Writes one line to standard output. */
  write(line: string): void;
  /** Writes one line to standard error. */
  writeError(line: string): void;
  /** The role's logger. */
  log: Log;
}

/**
 * Starts one read. `done` resolves with 0 after printing `{"temperature":"21.5"}` or
 * after the time-out without output, 1 when Bluetooth is unavailable, and
 * {@linkcode EXIT_USAGE} (with the usage on standard error) without a valid address.
 *
 * @example
 * ```ts
 * import { readTemperature } from "../../drivers/ble/read_temperature.ts";
 * import { createLog } from "../../lib/log.ts";
 *
 * const running = startReader({
 *   address: Deno.args[0],
 *   timeoutMs: 20000,
 *   read: readTemperature,
 *   write: (line) => console.log(line),
 *   writeError: (line) => console.error(line),
 *   log: createLog("reader"),
 * });
 * Deno.exit(await running.done);
 * ```
 */
export function startReader(options: ReaderOptions): RunningRole {
  const { address, log } = options;
  if (address === undefined || !normalizeBluetoothAddress(address)) {
    if (address !== undefined) {
      options.writeError(
        `Invalid address "${address}": expected a Bluetooth address such as AA:BB:CC:DD:EE:FF`,
      );
    }
    options.writeError(READER_USAGE);
    return { done: Promise.resolve(EXIT_USAGE), stop: () => Promise.resolve() };
  }
  const controller = new AbortController();
  const done = options.read(address, {
    timeoutMs: options.timeoutMs,
    signal: controller.signal,
    log,
  }).then((reading) => {
    if (reading) {
      log.debug(
        `Read ${address}: ${reading.temperature} °C, ${reading.humidity} %, battery ${reading.battery} %`,
      );
      options.write(
        JSON.stringify({ temperature: reading.temperature.toFixed(1) }),
      );
    }
    return 0;
  }, (error: unknown) => {
    if (controller.signal.aborted) return 0;
    log.error(`Cannot read the thermometer ${address}: ${errorText(error)}`);
    return 1;
  });
  return {
    done,
    async stop() {
      controller.abort(new Error("The reader is stopping"));
      await done;
    },
  };
}
