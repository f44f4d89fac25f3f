/**
 * One reading from a BeeWi BLE thermometer, the way the original reader program
 * took it: scan, restart the scan after 2 s, give up silently after 20 s.
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import { type BeeWiReading, decodeBeeWi } from "./beewi.ts";
import { normalizeBluetoothAddress } from "./bluetooth_address.ts";
import type { Scanner } from "./scanner.ts";
import { scan } from "./_scan.ts";

export type { BeeWiReading } from "./beewi.ts";
export type { Advertisement, Scanner } from "./scanner.ts";

/** Options of {@linkcode readTemperature}. */
export interface ReadTemperatureOptions {
  /** Give up (resolving `undefined`) after this long without a reading. @default 20000 */
  timeoutMs?: number;
  /** Restart the scan this long after starting it. @default 2000 */
  restartMs?: number;
  /** Aborts the read: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The BLE scanner. @default one made by `createScanner` */
  scanner?: Scanner;
  /**
   * Makes the scanner when `scanner` is not given; called once per read.
   * @default `createNobleScanner`, a scanner on `npm:@stoprocent/noble`
   */
  createScanner?: (options: { log: Log }) => Promise<Scanner>;
  /** Receives progress at DEBUG and the Bluetooth library's own messages. */
  log?: Log;
}

const SILENT: Log = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/**
 * Scans for the BeeWi thermometer at `address` and resolves with its first decoded
 * advertisement, or `undefined` when none arrives within the time-out.
 *
 * The address matches case-insensitively, with or without colons. The scanner is
 * always closed before the promise settles.
 *
 * @throws (rejects) when the address is malformed or Bluetooth is unavailable
 * @example
 * ```ts
 * const reading = await readTemperature("AA:BB:CC:DD:EE:FF");
 * if (reading) console.log(reading.temperature.toFixed(1));
 * ```
 */
export async function readTemperature(
  address: string,
  options: ReadTemperatureOptions = {},
): Promise<BeeWiReading | undefined> {
  const { timeoutMs = 20_000, restartMs = 2_000 } = options;
  const log = options.log ?? SILENT;
  const wanted = normalizeBluetoothAddress(address);
  if (wanted === undefined) {
    throw new Error(
      `Invalid Bluetooth address "${address}": expected six hex pairs such as AA:BB:CC:DD:EE:FF`,
    );
  }
  return await scan<BeeWiReading | undefined>(
    { ...options, timeoutMs, restartMs, log },
    (advertisement, done) => {
      if (!advertisement.manufacturerData) return;
      if (normalizeBluetoothAddress(advertisement.address) !== wanted) return;
      const reading = decodeBeeWi(advertisement.manufacturerData);
      if (!reading) {
        log.debug(
          `Ignoring a short advertisement from ${address}: ${advertisement.manufacturerData.length} bytes`,
        );
        return;
      }
      done(reading);
    },
    () => {
      log.debug(`No reading from ${address} within ${timeoutMs} ms`);
      return undefined;
    },
  );
}
