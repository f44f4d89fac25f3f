/**
 * The collector as a Prometheus exporter of its readings: each sensor's latest
 * value as a gauge in base units, and the time it was read.
 *
 * @module
 */
import type { MetricsRegistry } from "../../lib/metrics/registry.ts";
import type { Sample } from "./sample.ts";

/** Updates the sensor gauges from the points of a pass. */
export type RecordSamples = (samples: readonly Sample[]) => void;

/**
 * The gauges of each measurement, and the factor from the point's unit to the
 * gauge's base unit (Prometheus' naming guide: ratios, pascals, celsius).
 */
const GAUGES: Readonly<
  Record<
    string,
    readonly { field: string; name: string; help: string; scale: number }[]
  >
> = {
  home_temperature: [{
    field: "value",
    name: "homewire_sensor_temperature_celsius",
    help: "Latest temperature read by each sensor, in degrees Celsius",
    scale: 1,
  }],
  home_humidity: [{
    field: "value",
    name: "homewire_sensor_humidity_ratio",
    help: "Latest relative humidity read by each sensor, as a ratio (0 to 1)",
    scale: 0.01,
  }],
  home_battery: [{
    field: "value",
    name: "homewire_sensor_battery_ratio",
    help: "Latest battery level of each sensor, as a ratio (0 to 1)",
    scale: 0.01,
  }],
  home_pressure: [{
    field: "value",
    name: "homewire_sensor_pressure_pascals",
    help: "Latest air pressure read by each sensor, in pascals",
    scale: 100,
  }, {
    field: "sea_level",
    name: "homewire_sensor_sea_level_pressure_pascals",
    help:
      "Latest air pressure reduced to sea level (PRESSURE_ALTITUDE_M), in pascals",
    scale: 100,
  }],
};

/**
 * Registers the sensor gauges (`homewire_sensor_temperature_celsius`,
 * `_humidity_ratio`, `_battery_ratio`, `_pressure_pascals`,
 * `_sea_level_pressure_pascals` and `homewire_sensor_last_read_timestamp_seconds`,
 * each labelled `sensor` and `location`) and returns what records a pass's points in
 * them. `sensor` is the `BLE_SENSORS` name, or `in` / `out` for the wired
 * thermometer, the pressure chip and the weather; other points (rain, UV index,
 * forecast) are not sensors and are left out.
 *
 * @example
 * ```ts
 * import { createRegistry } from "../../lib/metrics/registry.ts";
 * import { float } from "./sample.ts";
 *
 * const registry = createRegistry();
 * const record = sensorGauges(registry.with({ role: "collector" }));
 * record([{
 *   measurement: "home_temperature",
 *   location: "in",
 *   sensor: "attic",
 *   time: new Date(),
 *   fields: { value: float(21.5) },
 * }]);
 * ```
 */
export function sensorGauges(registry: MetricsRegistry): RecordSamples {
  const gauges = new Map(
    Object.entries(GAUGES).map(([measurement, list]) => [
      measurement,
      list.map((g) => ({
        ...g,
        gauge: registry.gauge<"sensor" | "location">({
          name: g.name,
          help: g.help,
          labels: ["sensor", "location"],
        }),
      })),
    ]),
  );
  const lastRead = registry.gauge<"sensor" | "location">({
    name: "homewire_sensor_last_read_timestamp_seconds",
    help: "When each sensor was last read, in seconds since the epoch",
    labels: ["sensor", "location"],
  });
  return (samples) => {
    for (const sample of samples) {
      const list = gauges.get(sample.measurement);
      if (!list) continue;
      const labels = {
        sensor: sample.sensor ?? sample.location,
        location: sample.location,
      };
      let read = false;
      for (const { field, scale, gauge } of list) {
        const value = sample.fields[field];
        if (value === undefined || value.type === "boolean") continue;
        gauge.set(labels, value.value * scale);
        read = true;
      }
      if (!read) continue;
      const seconds = sample.time.getTime() / 1000;
      const key = lastRead.child(labels);
      if (seconds > key.value()) key.set(seconds);
    }
  };
}
