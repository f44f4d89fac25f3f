/**
 * The collector's settings. Only `TSDB_HOST` is required: a step whose own settings
 * are missing (the weather key, the thermometer address) reports it at ERROR on every
 * pass while the other step still runs.
 *
 * @module
 */
import {
  custom,
  optional,
  refine,
  type SettingsOf,
} from "../../lib/settings.ts";
import {
  choice,
  decimal,
  durationMs,
  headerSecret,
  integer,
  port,
  secret,
  text,
  url,
} from "../../lib/setting_kinds.ts";
import { normalizeBluetoothAddress } from "../../drivers/ble/bluetooth_address.ts";
import { parseBleSensors } from "../../drivers/ble/ble_sensor.ts";
import { cronSchedule } from "./cron_schedule.ts";
import { pressureSettings } from "../../drivers/pressure/mod.ts";
import { baseUrl } from "./tsdb_target.ts";
import { DEFAULT_WEATHER_MAX_BYTES } from "./weather_client.ts";

/**
 * `value` with the password of a `user:password@` part replaced by `***` (the whole
 * user information when it has no colon), for quoting in messages.
 */
export function hideUserinfo(value: string): string {
  return value.replace(
    /^([a-z][a-z\d+.-]*:\/\/)?(.*)@/is,
    (_, scheme: string | undefined, userinfo: string) => {
      const colon = userinfo.indexOf(":");
      const user = colon < 0 ? "***" : `${userinfo.slice(0, colon)}:***`;
      return `${scheme ?? ""}${user}@`;
    },
  );
}

/** Checks an `MQTT_URL`: mqtt(s)://[user:pass@]host[:port], quoted without its password. */
function mqttUrl(value: string): string {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  if (
    !url || !["mqtt:", "mqtts:"].includes(url.protocol) || url.hostname === ""
  ) {
    throw new Error(
      `"${
        hideUserinfo(value)
      }" is not mqtt://[user:pass@]host[:port] or mqtts://...`,
    );
  }
  return value;
}

/** Whether `host` is a host name, `host:port`, or an http(s) base URL. */
function isStoreHost(host: string): boolean {
  try {
    const { protocol } = new URL(baseUrl(host));
    return protocol === "http:" || protocol === "https:";
  } catch {
    return false;
  }
}

/** Every environment variable the `collector` role reads. */
export const collectorSettings = {
  COLLECTOR_SCHEDULE: cronSchedule({
    description: "Cron expression (UTC) of the collector passes",
    default: "*/5 * * * *",
  }),
  TEMPERATURE_SENSOR: optional(refine(
    text({
      description: "BLE address of the BeeWi thermometer (indoor temperature)",
    }),
    "a Bluetooth address such as AA:BB:CC:DD:EE:FF",
    (address) => normalizeBluetoothAddress(address) !== undefined,
  )),
  BLE_SENSORS: optional(custom(
    {
      description:
        "BLE thermometers as name=kind:address[,name=kind:address...], kind beewi, pvvx, atc1441 or bthome; each writes home_temperature, home_humidity and home_battery with the tag sensor=<name>",
    },
    parseBleSensors,
  )),
  TEMPERATURE_TIMEOUT_MS: durationMs({
    description:
      "Time the thermometer scan (and the BLE_SENSORS scan) gets for a reading on each pass",
    default: 20_000,
    min: 1,
  }),
  WEATHER_API_KEY: optional(secret({
    description: "OpenWeatherMap API key (the outdoor step needs it)",
  })),
  WEATHER_BASE_URL: url({
    description: "Base URL of the weather API",
    default: "https://api.openweathermap.org",
  }),
  WEATHER_CITY_ID: integer({
    description: "OpenWeatherMap city id for the weather and forecast calls",
    default: 3117735,
    min: 1,
  }),
  WEATHER_LAT: refine(
    decimal({
      description: "Latitude for the UV index call",
      default: 40.4165,
    }),
    "a latitude from -90 to 90",
    (lat) => lat >= -90 && lat <= 90,
  ),
  WEATHER_LON: refine(
    decimal({
      description: "Longitude for the UV index call",
      default: -3.7026,
    }),
    "a longitude from -180 to 180",
    (lon) => lon >= -180 && lon <= 180,
  ),
  WEATHER_UVI_SOURCE: choice(["uvi", "onecall"], {
    description:
      "UV index from /data/2.5/uvi (uvi) or current.uvi of /data/3.0/onecall",
    default: "uvi",
  }),
  WEATHER_TIMEOUT_MS: durationMs({
    description: "Time limit of one weather call",
    default: 10_000,
    min: 1,
  }),
  WEATHER_MAX_BYTES: integer({
    description:
      "Bound on the bytes of one weather reply, decoded (a forecast is about 16 KB; a few hundred bytes of br can decode to 1 GiB); past it the call fails",
    default: DEFAULT_WEATHER_MAX_BYTES,
    min: 1,
  }),
  // Secret, so the settings check never quotes the raw value (a base URL may hold a
  // password): the problem quotes it itself, with the password hidden.
  TSDB_HOST: custom(
    {
      description: "Host (or base URL) of the time-series store",
      secret: true,
      secretPart: "credentials",
    },
    (host) => {
      if (!isStoreHost(host)) {
        throw new Error(
          `"${hideUserinfo(host)}" is not a host name or an http(s) base URL`,
        );
      }
      return host;
    },
  ),
  // Unset is not 8086: a URL in TSDB_HOST without a port keeps its scheme's (443 for
  // a cloud store); an explicit TSDB_PORT applies to it (see baseUrl).
  TSDB_PORT: optional(port({
    description: "Port of the time-series store, when TSDB_HOST names none",
    requirement: "default 8086 for a bare host, the scheme's port for a URL",
  })),
  TSDB_DATABASE: text({
    description:
      "Database of the time-series store (v1), and the v2 bucket when TSDB_BUCKET is unset",
    default: "home",
  }),
  TSDB_API: choice(["v1", "v2"], {
    description: "Write API: v1 (/write?db=) or v2 (/api/v2/write)",
    default: "v1",
  }),
  TSDB_ORG: optional(text({ description: "Organisation (v2)" })),
  TSDB_BUCKET: optional(text({
    description: "Bucket (v2; default TSDB_DATABASE)",
  })),
  TSDB_TOKEN: optional(headerSecret({ description: "API token (v2)" })),
  TSDB_USERNAME: optional(text({ description: "User name (v1)" })),
  TSDB_PASSWORD: optional(secret({ description: "Password (v1)" })),
  TSDB_BUFFER_PATH: text({
    description:
      "SQLite file holding every point until the store acknowledges it (survives a restart or power cut; its folder is created); :memory: keeps them in memory only",
    default: "./data/collector-buffer.sqlite3",
  }),
  TSDB_BUFFER_LIMIT: integer({
    description: "Most points kept for retry while the store is down",
    default: 10_000,
    min: 1,
  }),
  TSDB_TIMEOUT_MS: durationMs({
    description: "Time limit of one write request",
    default: 10_000,
    min: 1,
  }),
  MQTT_URL: optional(custom(
    {
      description:
        "MQTT broker (mqtt://[user:pass@]host[:port] or mqtts://) receiving each reading and the Home Assistant discovery configurations; unset: no MQTT",
      secret: true,
      secretPart: "credentials",
    },
    mqttUrl,
  )),
  MQTT_DISCOVERY_PREFIX: refine(
    text({
      description: "Topic prefix of the Home Assistant MQTT discovery",
      default: "homeassistant",
    }),
    "a topic prefix without wildcards (+, #) nor a / at either end",
    // `homeassistant/` would make `homeassistant//sensor/...`, which Home Assistant
    // never reads.
    (prefix) => !/[+#]|^\/|\/$/.test(prefix),
  ),
  ...pressureSettings,
  PRESSURE_ALTITUDE_M: optional(refine(
    decimal({
      description:
        "Altitude of the pressure sensor in metres: adds the field sea_level (pressure reduced to sea level) to the indoor home_pressure",
    }),
    "an altitude in metres from -500 to 9000",
    (metres) => metres >= -500 && metres <= 9000,
  )),
};

/** The parsed collector settings. */
export type CollectorSettings = SettingsOf<typeof collectorSettings>;
