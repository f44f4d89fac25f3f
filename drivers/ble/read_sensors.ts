/**
 * One BLE scan for several thermometers (`BLE_SENSORS`): it ends as soon as each has
 * been heard, or when the time-out runs out, whichever comes first.
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import { type BleSensor, decodeAdvertisement } from "./ble_sensor.ts";
import { normalizeBluetoothAddress } from "./bluetooth_address.ts";
import { createNobleScanner } from "./noble_scanner.ts";
import type { Advertisement, Scanner } from "./scanner.ts";
import type { SensorReading } from "./sensor_reading.ts";

/** Options of {@linkcode readSensors}. */
export interface ReadSensorsOptions {
  /** How long the scan lasts at most. @default 20000 */
  timeoutMs?: number;
  /** When the scan is restarted once (some adapters stall). @default 2000 */
  restartMs?: number;
  /** Ends the scan early; the promise rejects with its reason. */
  signal?: AbortSignal;
  /** The BLE scanner. @default one made by `createScanner` */
  scanner?: Scanner;
  /** Makes the scanner when `scanner` is not given. @default createNobleScanner */
  createScanner?: (options: { log: Log }) => Promise<Scanner>;
  /** A malformed frame is reported at WARNING (once per sensor and scan). */
  log: Log;
}

/**
 * Scans once for every sensor of `sensors` and resolves with the first reading heard
 * from each, by name; a sensor not heard within the time-out is absent from the map.
 * A malformed or truncated frame is logged at WARNING (once per sensor per scan) and
 * the scan goes on waiting for a good one. The scanner is closed before the promise
 * settles.
 *
 * @throws (rejects) when Bluetooth is unavailable, or with `signal`'s reason
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import { parseBleSensors } from "./ble_sensor.ts";
 *
 * const sensors = parseBleSensors("kitchen=pvvx:A4:C1:38:12:34:56");
 * const readings = await readSensors(sensors, {
 *   timeoutMs: 20000,
 *   log: createLog("collector"),
 * });
 * readings.get("kitchen")?.temperature;
 * ```
 */
export async function readSensors(
  sensors: readonly BleSensor[],
  options: ReadSensorsOptions,
): Promise<Map<string, SensorReading>> {
  const { timeoutMs = 20_000, restartMs = 2_000, signal, log } = options;
  const readings = new Map<string, SensorReading>();
  if (sensors.length === 0) return readings;
  const byAddress = new Map<string, BleSensor[]>();
  for (const sensor of sensors) {
    byAddress.set(sensor.address, [
      ...(byAddress.get(sensor.address) ?? []),
      sensor,
    ]);
  }
  const warned = new Set<string>();
  signal?.throwIfAborted();
  const createScanner = options.createScanner ?? createNobleScanner;
  const scanner = options.scanner ?? await createScanner({ log });
  if (signal?.aborted) {
    await closeScanner(scanner, log);
    throw signal.reason;
  }
  return await new Promise((resolve, reject) => {
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
      if (settled) return;
      const address = normalizeBluetoothAddress(advertisement.address);
      for (const sensor of byAddress.get(address ?? "") ?? []) {
        if (readings.has(sensor.name)) continue;
        const decoded = decodeAdvertisement(sensor.kind, advertisement);
        if (decoded?.reading) readings.set(sensor.name, decoded.reading);
        else if (decoded?.problem && !warned.has(sensor.name)) {
          warned.add(sensor.name);
          log.warn(
            `BLE sensor "${sensor.name}" (${sensor.kind}) sent a frame that cannot be read: ${decoded.problem}`,
          );
        }
      }
      if (readings.size === sensors.length) finish(() => resolve(readings));
    };
    const restartTimer = setTimeout(() => {
      log.debug("Restarting the Bluetooth scan");
      scanner.stop()
        .then(() => settled ? undefined : scanner.start(onAdvertisement))
        .catch(fail);
    }, restartMs);
    const deadlineTimer = setTimeout(
      () => finish(() => resolve(readings)),
      timeoutMs,
    );
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
