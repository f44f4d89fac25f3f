/**
 * The indoor step: pressure from the attached sensor and temperature (with humidity)
 * from the BLE thermometer, each bounded in time and failing alone.
 *
 * @module
 */
import { errorText, type Log } from "../../lib/log.ts";
import { deadline, raceSignal } from "../../lib/deadline.ts";
import type { Step } from "./collector.ts";
import type { PressureSource } from "../../drivers/pressure/pressure_source.ts";
import { float, type Sample } from "./sample.ts";
import type { SensorReading } from "../../drivers/ble/sensor_reading.ts";

/** A thermometer reading (the BeeWi sensor's). */
export interface ThermometerReading {
  /** Degrees Celsius. */
  temperature: number;
  /** Relative humidity in percent. */
  humidity: number;
}

/** Reads the thermometer once; `undefined` when it gave no reading in time. */
export type ReadThermometer = (options: {
  timeoutMs: number;
  signal: AbortSignal;
}) => Promise<ThermometerReading | undefined>;

/**
 * Scans once for the `BLE_SENSORS` thermometers: readings by sensor name, a sensor not
 * heard in time absent. Rejects when Bluetooth is unavailable.
 */
export type ReadSensors = (options: {
  timeoutMs: number;
  signal: AbortSignal;
}) => Promise<ReadonlyMap<string, SensorReading>>;

/** What {@linkcode createIndoorStep} needs. */
export interface IndoorStepOptions {
  /**
   * Returns the pressure sensor, `undefined` when none is configured; may throw when
   * the sensor cannot be set up (reported at ERROR, retried next pass).
   */
  pressure: () => PressureSource | undefined;
  /** The thermometer; `undefined` when it is not configured (see `missing`). */
  thermometer?: ReadThermometer;
  /**
   * Why there is no thermometer, e.g. the missing address; thrown on every pass.
   * Unset with no thermometer: no thermometer is wanted (`BLE_SENSORS` only).
   */
  missing?: string;
  /**
   * The `BLE_SENSORS` thermometers by name, read after the thermometer (one scan at a
   * time); each writes its points with its `sensor` tag.
   */
  sensors?: { names: readonly string[]; read: ReadSensors };
  /** Time the thermometer gets for a reading; the pressure sensor gets the same. */
  timeoutMs: number;
  /** Extra time after `timeoutMs` before a hung read is abandoned. @default 5000 */
  graceMs?: number;
  /**
   * Altitude of the sensor in metres: adds the field `sea_level` (the pressure
   * reduced to sea level) to `home_pressure`. @default none
   */
  altitudeM?: number;
  /** Logger for readings that fail. */
  log: Log;
}

/**
 * The pressure at sea level for a reading `hPa` taken `altitudeM` metres up, by the
 * international barometric formula: P0 = P / (1 - h / 44330)^5.255.
 *
 * @example
 * ```ts
 * seaLevelPressure(950, 650); // 1026.68 (to two decimals)
 * ```
 */
export function seaLevelPressure(hPa: number, altitudeM: number): number {
  return hPa / Math.pow(1 - altitudeM / 44330, 5.255);
}

/**
 * Builds the indoor step. It writes each reading it obtained: when the thermometer
 * fails, the pressure is still written and the failure logged at ERROR (and the other
 * way round). A read that hangs is abandoned after `timeoutMs + graceMs`. A read cut
 * short by `signal` (the collector stopping) is logged at DEBUG only.
 */
export function createIndoorStep(options: IndoorStepOptions): Step {
  const { log, timeoutMs, graceMs = 5000 } = options;
  const bounded = async <T>(
    what: string,
    read: (signal: AbortSignal) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> => {
    const limit = deadline(timeoutMs + graceMs, signal);
    try {
      return await raceSignal(read(limit.signal), limit.signal);
    } catch (error) {
      if (limit.expired()) {
        throw new Error(
          `${what} gave no response within ${timeoutMs + graceMs} ms`,
        );
      }
      throw error;
    } finally {
      limit.clear();
    }
  };

  const readPressure = async (time: Date, signal?: AbortSignal) => {
    const sensor = options.pressure();
    if (!sensor) return [];
    const hPa = await bounded("Pressure sensor", () => sensor.read(), signal);
    if (!Number.isFinite(hPa)) {
      throw new Error(`Pressure sensor returned "${hPa}": expected hPa`);
    }
    const point = sample("home_pressure", time, hPa);
    if (options.altitudeM === undefined) return [point];
    const seaLevel = float(seaLevelPressure(hPa, options.altitudeM));
    return [{ ...point, fields: { ...point.fields, sea_level: seaLevel } }];
  };

  const readThermometer = async (time: Date, signal?: AbortSignal) => {
    const thermometer = options.thermometer;
    if (!thermometer) {
      if (options.missing === undefined) return [];
      throw new Error(options.missing);
    }
    const reading = await bounded(
      "Thermometer",
      (inner) => thermometer({ timeoutMs, signal: inner }),
      signal,
    );
    if (!reading) {
      throw new Error(`Thermometer gave no reading within ${timeoutMs} ms`);
    }
    return [
      sample("home_temperature", time, reading.temperature),
      sample("home_humidity", time, reading.humidity),
    ];
  };

  /** Each sensor's points; one ERROR per sensor not heard. */
  const readSensors = async (time: Date, signal?: AbortSignal) => {
    const sensors = options.sensors;
    if (!sensors || sensors.names.length === 0) return [];
    let readings: ReadonlyMap<string, SensorReading>;
    try {
      readings = await bounded(
        "BLE sensor scan",
        (inner) => sensors.read({ timeoutMs, signal: inner }),
        signal,
      );
    } catch (error) {
      if (signal?.aborted) {
        log.debug(`Indoor step: BLE sensor scan stopped: ${errorText(error)}`);
      } else {
        log.error(
          `Indoor step: no reading from the BLE sensors (${
            sensors.names.join(", ")
          }): ${errorText(error)}`,
        );
      }
      return [];
    }
    const samples: Sample[] = [];
    for (const name of sensors.names) {
      const reading = readings.get(name);
      if (!reading) {
        log.error(
          `Indoor step: no reading from BLE sensor "${name}" within ${timeoutMs} ms`,
        );
        continue;
      }
      for (
        const [measurement, value] of [
          ["home_temperature", reading.temperature],
          ["home_humidity", reading.humidity],
          ["home_battery", reading.battery],
        ] as const
      ) {
        if (value === undefined || !Number.isFinite(value)) continue;
        samples.push({ ...sample(measurement, time, value), sensor: name });
      }
    }
    return samples;
  };

  return async (time, signal) => {
    const thermometer = readThermometer(time, signal);
    // After the thermometer: one Bluetooth scan at a time.
    const sensors = thermometer.catch(() => {}).then(() =>
      readSensors(time, signal)
    );
    const [pressure, temperature] = await Promise.allSettled([
      readPressure(time, signal),
      thermometer,
    ]);
    const samples: Sample[] = [];
    for (
      const [what, result] of [["pressure", pressure], [
        "temperature",
        temperature,
      ]] as const
    ) {
      if (result.status === "fulfilled") samples.push(...result.value);
      else if (signal?.aborted) {
        // Stopping: the read was cut short on purpose.
        log.debug(
          `Indoor step: ${what} read stopped: ${errorText(result.reason)}`,
        );
      } else {
        log.error(
          `Indoor step: no ${what} reading: ${errorText(result.reason)}`,
        );
      }
    }
    samples.push(...await sensors);
    return samples;
  };
}

function sample(measurement: string, time: Date, value: number): Sample {
  return { measurement, location: "in", time, fields: { value: float(value) } };
}
