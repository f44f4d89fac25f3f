/**
 * One reading from a BeeWi BLE thermometer, the way the original reader program
 * took it: scan, restart the scan after 2 s, give up silently after 20 s.
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import { type BeeWiReading, decodeBeeWi } from "./beewi.ts";
import { normalizeBluetoothAddress } from "./bluetooth_address.ts";
import { createNobleScanner } from "./noble_scanner.ts";
import type { Advertisement, Scanner } from "./scanner.ts";

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
   * @default {@linkcode createNobleScanner}, a scanner on `npm:@stoprocent/noble`
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
  const { timeoutMs = 20_000, restartMs = 2_000, signal } = options;
  const log = options.log ?? SILENT;
  const wanted = normalizeBluetoothAddress(address);
  if (wanted === undefined) {
    throw new Error(
      `Invalid Bluetooth address "${address}": expected six hex pairs such as AA:BB:CC:DD:EE:FF`,
    );
  }
  signal?.throwIfAborted();
  const createScanner = options.createScanner ?? createNobleScanner;
  const scanner = options.scanner ?? await createScanner({ log });
  // An abort while the scanner was made has already fired: a listener added now
  // would never run, and the read would last until the time-out.
  if (signal?.aborted) {
    await closeScanner(scanner, log);
    throw signal.reason;
  }

  return await new Promise<BeeWiReading | undefined>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(restartTimer);
      clearTimeout(deadlineTimer);
      signal?.removeEventListener("abort", onAbort);
      closeScanner(scanner, log).finally(outcome);
    };
    const fail = (error: unknown) => finish(() => reject(error));
    const onAbort = () => fail(signal?.reason);
    const onAdvertisement = (advertisement: Advertisement) => {
      if (settled || !advertisement.manufacturerData) return;
      if (normalizeBluetoothAddress(advertisement.address) !== wanted) return;
      const reading = decodeBeeWi(advertisement.manufacturerData);
      if (!reading) {
        log.debug(
          `Ignoring a short advertisement from ${address}: ${advertisement.manufacturerData.length} bytes`,
        );
        return;
      }
      finish(() => resolve(reading));
    };

    const restartTimer = setTimeout(() => {
      log.debug("Restarting the Bluetooth scan");
      scanner.stop()
        .then(() => settled ? undefined : scanner.start(onAdvertisement))
        .catch(fail);
    }, restartMs);
    const deadlineTimer = setTimeout(() => {
      log.debug(`No reading from ${address} within ${timeoutMs} ms`);
      finish(() => resolve(undefined));
    }, timeoutMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    scanner.start(onAdvertisement).catch(fail);
  });
}

/** Closes `scanner`, logging a failure at DEBUG instead of throwing it. */
async function closeScanner(scanner: Scanner, log: Log): Promise<void> {
  try {
    await scanner.close();
  } catch (error) {
    log.debug(`Closing the Bluetooth scanner failed: ${error}`);
  }
}
