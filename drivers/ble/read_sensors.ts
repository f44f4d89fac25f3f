/**
 * One BLE scan for several thermometers (`BLE_SENSORS`): it ends as soon as each has
 * been heard, or when the time-out runs out, whichever comes first.
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import { type BleSensor, decodeAdvertisement } from "./ble_sensor.ts";
import { normalizeBluetoothAddress } from "./bluetooth_address.ts";
import { scan } from "./_scan.ts";
import type { Scanner } from "./scanner.ts";
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
 * A sensor counts as heard once its frames gave a temperature or a humidity (frames
 * without, such as a BTHome packet of voltage only, are merged into its reading); at
 * the time-out, one heard with a battery level only gives that.
 * A malformed or truncated frame is logged at WARNING (once per sensor per scan) and
 * the scan goes on waiting for a good one. The scanner is closed before the promise
 * settles.
 *
 * @throws (rejects) when Bluetooth is unavailable, or with `signal`'s reason
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import { parseBleSensors } from "./ble_sensor.ts";
 * import { readSensors } from "./read_sensors.ts";
 *
 * const sensors = parseBleSensors("kitchen=pvvx:A4:C1:38:12:34:56");
 * const log = createLog("collector");
 * const readings = await readSensors(sensors, { timeoutMs: 20000, log });
 * readings.get("kitchen")?.temperature;
 * ```
 */
export async function readSensors(
  sensors: readonly BleSensor[],
  options: ReadSensorsOptions,
): Promise<Map<string, SensorReading>> {
  const { timeoutMs = 20_000, restartMs = 2_000, log } = options;
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
  /** Frames of sensors heard so far without a temperature or humidity, merged. */
  const partial = new Map<string, SensorReading>();
  return await scan<Map<string, SensorReading>>(
    { ...options, timeoutMs, restartMs, log },
    (advertisement, done) => {
      const address = normalizeBluetoothAddress(advertisement.address);
      for (const sensor of byAddress.get(address ?? "") ?? []) {
        if (readings.has(sensor.name)) continue;
        const decoded = decodeAdvertisement(sensor.kind, advertisement);
        if (decoded?.reading) {
          // Earlier frames' values win; a frame without temperature or humidity
          // (a BTHome voltage packet) waits for one that has them.
          const merged = { ...decoded.reading, ...partial.get(sensor.name) };
          if (
            merged.temperature !== undefined || merged.humidity !== undefined
          ) {
            readings.set(sensor.name, merged);
            partial.delete(sensor.name);
          } else partial.set(sensor.name, merged);
        } else if (decoded?.problem && !warned.has(sensor.name)) {
          warned.add(sensor.name);
          log.warn(
            `BLE sensor "${sensor.name}" (${sensor.kind}) sent a frame that cannot be read: ${decoded.problem}`,
          );
        }
      }
      if (readings.size === sensors.length) done(readings);
    },
    () => {
      // Out of time: a sensor heard without temperature or humidity gives its battery.
      for (const [name, reading] of partial) {
        if (reading.battery !== undefined) readings.set(name, reading);
      }
      return readings;
    },
  );
}
