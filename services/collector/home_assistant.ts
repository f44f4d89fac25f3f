/**
 * The MQTT shape of the collector's points: the topic and JSON payload of a reading,
 * and the Home Assistant MQTT discovery configuration of each entity.
 *
 * @module
 */
import type { Sample } from "./sample.ts";

/** The root of every homewire topic. */
export const TOPIC_ROOT = "homewire";

/** The retained availability topic (`online` / `offline`). */
export const STATUS_TOPIC = `${TOPIC_ROOT}/status`;

/** What Home Assistant is told about a field of a measurement. */
interface EntityKind {
  readonly name: string;
  readonly component: "sensor" | "binary_sensor";
  readonly deviceClass?: string;
  readonly unit?: string;
  readonly valueTemplate?: string;
}

/** The entities announced, by measurement and field; other points are only published. */
const ENTITIES: Readonly<Record<string, Readonly<Record<string, EntityKind>>>> =
  {
    home_temperature: {
      value: {
        name: "Temperature",
        component: "sensor",
        deviceClass: "temperature",
        unit: "°C",
      },
    },
    home_humidity: {
      value: {
        name: "Humidity",
        component: "sensor",
        deviceClass: "humidity",
        unit: "%",
      },
    },
    home_battery: {
      value: {
        name: "Battery",
        component: "sensor",
        deviceClass: "battery",
        unit: "%",
      },
    },
    home_pressure: {
      value: {
        name: "Pressure",
        component: "sensor",
        deviceClass: "pressure",
        unit: "hPa",
      },
      sea_level: {
        name: "Sea-level pressure",
        component: "sensor",
        deviceClass: "pressure",
        unit: "hPa",
      },
    },
    home_uvi: {
      value: { name: "UV index", component: "sensor", unit: "UV index" },
    },
    home_rain: {
      value: {
        name: "Rain",
        component: "binary_sensor",
        deviceClass: "moisture",
        valueTemplate: "{{ 'ON' if value_json.value else 'OFF' }}",
      },
      level: { name: "Rain level", component: "sensor" },
    },
  };

/**
 * The topic of a reading: `homewire/<measurement>/<location>[/<sensor>]`.
 *
 * @example
 * ```ts
 * import { float } from "./sample.ts";
 *
 * readingTopic({
 *   measurement: "home_humidity",
 *   location: "in",
 *   sensor: "kitchen",
 *   time: new Date(),
 *   fields: { value: float(41) },
 * }); // "homewire/home_humidity/in/kitchen"
 * ```
 */
export function readingTopic(sample: Sample): string {
  const base = `${TOPIC_ROOT}/${sample.measurement}/${sample.location}`;
  return sample.sensor === undefined ? base : `${base}/${sample.sensor}`;
}

/**
 * The JSON payload of a reading: `{"time": "<ISO 8601>", <field>: <value>...}`.
 *
 * @example
 * ```ts
 * import { float } from "./sample.ts";
 *
 * readingPayload({
 *   measurement: "home_pressure",
 *   location: "in",
 *   time: new Date("2026-11-21T20:15:00Z"),
 *   fields: { value: float(1013.2) },
 * }); // '{"time":"2026-11-21T20:15:00.000Z","value":1013.2}'
 * ```
 */
export function readingPayload(sample: Sample): string {
  const fields = Object.fromEntries(
    Object.entries(sample.fields).map(([name, field]) => [name, field.value]),
  );
  return JSON.stringify({ time: sample.time.toISOString(), ...fields });
}

/** One discovery message: retained on `topic`. */
export interface DiscoveryConfig {
  /** `<prefix>/<component>/<node id>/<object id>/config`. */
  readonly topic: string;
  /** The configuration as JSON. */
  readonly payload: string;
}

/**
 * The Home Assistant discovery configurations of the entities `sample` feeds (one per
 * field Home Assistant knows how to show; none for the forecast).
 *
 * @example
 * ```ts
 * import { float } from "./sample.ts";
 *
 * const sample = {
 *   measurement: "home_temperature",
 *   location: "in" as const,
 *   sensor: "kitchen",
 *   time: new Date(),
 *   fields: { value: float(21.5) },
 * };
 * discoveryConfigs(sample, "homeassistant")[0]?.topic;
 * // "homeassistant/sensor/homewire_in_kitchen/home_temperature_value/config"
 * ```
 */
export function discoveryConfigs(
  sample: Sample,
  prefix: string,
): DiscoveryConfig[] {
  const kinds = ENTITIES[sample.measurement] ?? {};
  const node = ["homewire", sample.location, sample.sensor]
    .filter((part) => part !== undefined).join("_");
  const device = deviceOf(sample, node);
  const configs: DiscoveryConfig[] = [];
  for (const field of Object.keys(sample.fields)) {
    const kind = kinds[field];
    if (!kind) continue;
    const objectId = `${sample.measurement}_${field}`;
    const config = {
      name: kind.name,
      unique_id: `${node}_${objectId}`,
      // The entity id Home Assistant gives it (`object_id` stopped working in 2026.4).
      // An entity id is lower-case letters, digits and `_` (a sensor may be `Hall-2`).
      default_entity_id: `${kind.component}.${node}_${objectId}`
        .toLowerCase().replace(/[^a-z0-9_.]/g, "_"),
      state_topic: readingTopic(sample),
      value_template: kind.valueTemplate ?? `{{ value_json.${field} }}`,
      ...(kind.deviceClass ? { device_class: kind.deviceClass } : {}),
      ...(kind.unit ? { unit_of_measurement: kind.unit } : {}),
      ...(kind.component === "sensor" ? { state_class: "measurement" } : {}),
      availability_topic: STATUS_TOPIC,
      payload_available: "online",
      payload_not_available: "offline",
      device,
    };
    configs.push({
      topic: `${prefix}/${kind.component}/${node}/${objectId}/config`,
      payload: JSON.stringify(config),
    });
  }
  return configs;
}

function deviceOf(sample: Sample, node: string) {
  const name = sample.sensor !== undefined
    ? `homewire ${sample.sensor}`
    : sample.location === "in"
    ? "homewire indoor"
    : "homewire outdoor";
  const model = sample.sensor !== undefined
    ? "BLE thermometer"
    : sample.location === "in"
    ? "Indoor sensors"
    : "OpenWeatherMap";
  return { identifiers: [node], name, manufacturer: "homewire", model };
}
