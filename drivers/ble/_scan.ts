/**
 * One BLE scan session, shared by the thermometer readers: the scanner made (or
 * taken), restarted after a while, stopped at the deadline or on abort, and closed
 * before the outcome is delivered.
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import { createNobleScanner } from "./noble_scanner.ts";
import type { Advertisement, Scanner } from "./scanner.ts";

/** How a scan session runs. */
export interface ScanOptions {
  /**
   * The session ends with `onDeadline()` this long after `scan` was called: the
   * time the scanner takes to be made (the Bluetooth library's first load) counts,
   * so a caller bounding the session by the same time gets its outcome.
   */
  timeoutMs: number;
  /** The scan is restarted this long after it started. */
  restartMs: number;
  /** Aborts the session: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The BLE scanner; else one made by `createScanner`. */
  scanner?: Scanner;
  /** Makes the scanner when `scanner` is not given. @default createNobleScanner */
  createScanner?: (options: { log: Log }) => Promise<Scanner>;
  /** Receives progress at DEBUG. */
  log: Log;
}

/**
 * Scans until `onAdvertisement` calls its `done` with the outcome, or until the
 * deadline, whose outcome is `onDeadline()`. A failing scanner rejects. The scanner
 * is closed before the promise settles.
 */
export async function scan<T>(
  options: ScanOptions,
  onAdvertisement: (
    advertisement: Advertisement,
    done: (value: T) => void,
  ) => void,
  onDeadline: () => T,
): Promise<T> {
  const { timeoutMs, restartMs, signal, log } = options;
  const started = Date.now();
  signal?.throwIfAborted();
  const createScanner = options.createScanner ?? createNobleScanner;
  const scanner = options.scanner ?? await createScanner({ log });
  // An abort while the scanner was made has already fired: a listener added now
  // would never run, and the scan would last until the time-out.
  if (signal?.aborted) {
    await closeScanner(scanner, log);
    throw signal.reason;
  }
  return await new Promise<T>((resolve, reject) => {
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
    const done = (value: T) => finish(() => resolve(value));
    const listener = (advertisement: Advertisement) => {
      if (!settled) onAdvertisement(advertisement, done);
    };
    const restartTimer = setTimeout(() => {
      log.debug("Restarting the Bluetooth scan");
      scanner.stop()
        .then(() => settled ? undefined : scanner.start(listener))
        .catch(fail);
    }, restartMs);
    const deadlineTimer = setTimeout(() => {
      if (!settled) done(onDeadline());
    }, Math.max(0, timeoutMs - (Date.now() - started)));
    signal?.addEventListener("abort", onAbort, { once: true });
    scanner.start(listener).catch(fail);
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
