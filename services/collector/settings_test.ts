import assert from "node:assert/strict";
import { parseSettings, type SettingsError } from "../../lib/settings.ts";
import { helpText } from "../../program/help.ts";
import { collectorRole } from "./mod.ts";
import { collectorSettings } from "./settings.ts";

Deno.test("collectorSettings needs only TSDB_HOST and has the documented defaults", () => {
  const settings = parseSettings(collectorSettings, { TSDB_HOST: "influx" });
  assert.equal(settings.COLLECTOR_SCHEDULE, "*/5 * * * *");
  assert.equal(settings.TSDB_API, "v1");
  assert.equal(settings.TSDB_BUFFER_LIMIT, 10_000);
  assert.equal(settings.TSDB_BUFFER_PATH, "./data/collector-buffer.sqlite3");
  assert.equal(settings.PRESSURE_ALTITUDE_M, undefined);
  assert.equal(settings.WEATHER_BASE_URL, "https://api.openweathermap.org");
  assert.equal(settings.WEATHER_UVI_SOURCE, "uvi");
  assert.equal(settings.WEATHER_API_KEY, undefined);
  assert.equal(settings.TEMPERATURE_SENSOR, undefined);
  assert.equal(settings.WEATHER_MAX_BYTES, 4 * 1024 * 1024);
  assert.throws(
    () => parseSettings(collectorSettings, {}),
    (error: SettingsError) => {
      assert.equal(error.problems.length, 1);
      assert.match(error.problems[0]!, /^Missing TSDB_HOST: /);
      return true;
    },
  );
});

Deno.test("collectorSettings leaves TSDB_PORT unset unless given, and --help says 8086 for a bare host", () => {
  const port = (env: Record<string, string>) =>
    parseSettings(collectorSettings, { TSDB_HOST: "http://127.0.0.1", ...env })
      .TSDB_PORT;
  // Unset is not 8086: a URL then keeps its scheme's port (see tsdbTarget).
  assert.equal(port({}), undefined);
  assert.equal(port({ TSDB_PORT: "43428" }), 43428);
  assert.equal(port({ TSDB_PORT: "8086" }), 8086);
  const line = helpText([collectorRole], {}).split("\n").find((l) =>
    l.trim().startsWith("TSDB_PORT ")
  );
  assert.match(
    line ?? "",
    /^\s+TSDB_PORT\s+Port of the time-series store, when TSDB_HOST names none \(default 8086 for a bare host, the scheme's port for a URL\)$/,
  );
});

Deno.test("collectorSettings rejects a malformed store host, API, UV source, reply bound or thermometer", () => {
  assert.throws(
    () =>
      parseSettings(collectorSettings, {
        TEMPERATURE_SENSOR: "kitchen",
        TSDB_HOST: "ftp://influx",
        TSDB_API: "v3",
        WEATHER_UVI_SOURCE: "sky",
        WEATHER_MAX_BYTES: "4MB",
        WEATHER_API_KEY: "k",
      }),
    (error: SettingsError) => {
      assert.equal(error.problems.length, 5);
      assert.match(error.problems[2]!, /^Invalid WEATHER_MAX_BYTES "4MB": /);
      assert.deepEqual(error.problems.filter((_, at) => at !== 2), [
        'Invalid TEMPERATURE_SENSOR "kitchen": expected a Bluetooth address such as AA:BB:CC:DD:EE:FF',
        'Invalid WEATHER_UVI_SOURCE "sky": expected one of uvi, onecall',
        'Invalid TSDB_HOST: "ftp://influx" is not a host name or an http(s) base URL',
        'Invalid TSDB_API "v3": expected one of v1, v2',
      ]);
      return true;
    },
  );
  for (
    const host of [
      "influx",
      "10.0.0.2",
      "influx:8087",
      "https://u:p@h/x",
      "::1",
    ]
  ) {
    assert.equal(
      parseSettings(collectorSettings, { TSDB_HOST: host }).TSDB_HOST,
      host,
    );
  }
  assert.equal(
    parseSettings(collectorSettings, {
      TSDB_HOST: "h",
      TEMPERATURE_SENSOR: "aabbccddeeff",
    }).TEMPERATURE_SENSOR,
    "aabbccddeeff",
  );
});

Deno.test("collectorSettings never prints the password of a malformed TSDB_HOST", () => {
  for (
    const [host, shown] of [
      ["http://u:pw9secret@bad host:80", "http://u:***@bad host:80"],
      ["ftp://token9secret@influx", "ftp://***@influx"],
    ]
  ) {
    assert.throws(
      () => parseSettings(collectorSettings, { TSDB_HOST: host }),
      (error: SettingsError) => {
        assert.deepEqual(error.problems, [
          `Invalid TSDB_HOST: "${shown}" is not a host name or an http(s) base URL`,
        ]);
        assert.ok(!error.message.includes("9secret"));
        return true;
      },
    );
  }
});

Deno.test("collectorSettings keeps WEATHER_LAT within -90..90 and WEATHER_LON within -180..180", () => {
  const base = { TSDB_HOST: "influx" };
  for (const [lat, lon] of [["90", "180"], ["-90", "-180"], ["0", "0.5"]]) {
    const settings = parseSettings(collectorSettings, {
      ...base,
      WEATHER_LAT: lat,
      WEATHER_LON: lon,
    });
    assert.deepEqual(
      [settings.WEATHER_LAT, settings.WEATHER_LON],
      [Number(lat), Number(lon)],
    );
  }
  assert.throws(
    () =>
      parseSettings(collectorSettings, {
        ...base,
        WEATHER_LAT: "999",
        WEATHER_LON: "-180.5",
      }),
    (error: SettingsError) => {
      assert.deepEqual(error.problems, [
        'Invalid WEATHER_LAT "999": expected a latitude from -90 to 90',
        'Invalid WEATHER_LON "-180.5": expected a longitude from -180 to 180',
      ]);
      return true;
    },
  );
});

Deno.test("collectorSettings reads BLE_SENSORS and names its malformed entries", () => {
  const settings = parseSettings(collectorSettings, {
    TSDB_HOST: "influx",
    BLE_SENSORS: "kitchen=pvvx:A4:C1:38:00:00:01",
  });
  assert.deepEqual(settings.BLE_SENSORS, [
    { name: "kitchen", kind: "pvvx", address: "a4c138000001" },
  ]);
  assert.throws(
    () =>
      parseSettings(collectorSettings, {
        TSDB_HOST: "influx",
        BLE_SENSORS: "kitchen=xiaomi:A4:C1:38:00:00:01",
        PRESSURE_ALTITUDE_M: "high",
      }),
    (error: SettingsError) => {
      assert.deepEqual(error.problems, [
        'Invalid BLE_SENSORS "kitchen=xiaomi:A4:C1:38:00:00:01": "kitchen=xiaomi:A4:C1:38:00:00:01": unknown kind "xiaomi" (expected beewi, pvvx, atc1441, bthome)',
        'Invalid PRESSURE_ALTITUDE_M "high": expected a number',
      ]);
      return true;
    },
  );
});

Deno.test("collectorSettings checks MQTT_URL without quoting its password", () => {
  const settings = parseSettings(collectorSettings, {
    TSDB_HOST: "influx",
    MQTT_URL: "mqtts://ha:pw@broker.lan:8883",
  });
  assert.equal(settings.MQTT_URL, "mqtts://ha:pw@broker.lan:8883");
  assert.equal(settings.MQTT_DISCOVERY_PREFIX, "homeassistant");
  assert.throws(
    () =>
      parseSettings(collectorSettings, {
        TSDB_HOST: "influx",
        MQTT_URL: "http://ha:s3cret@broker.lan",
        MQTT_DISCOVERY_PREFIX: "home/#",
      }),
    (error: SettingsError) => {
      assert.deepEqual(error.problems, [
        'Invalid MQTT_URL: "http://ha:***@broker.lan" is not mqtt://[user:pass@]host[:port] or mqtts://...',
        'Invalid MQTT_DISCOVERY_PREFIX "home/#": expected a topic prefix without wildcards (+, #) nor a / at either end',
      ]);
      assert.ok(!error.message.includes("s3cret"));
      return true;
    },
  );
  for (const prefix of ["homeassistant/", "/homeassistant"]) {
    assert.throws(
      () =>
        parseSettings(collectorSettings, {
          TSDB_HOST: "influx",
          MQTT_DISCOVERY_PREFIX: prefix,
        }),
      { message: new RegExp(`MQTT_DISCOVERY_PREFIX "${prefix}"`) },
    );
  }
  assert.equal(
    parseSettings(collectorSettings, {
      TSDB_HOST: "influx",
      MQTT_DISCOVERY_PREFIX: "home/assistant",
    }).MQTT_DISCOVERY_PREFIX,
    "home/assistant",
  );
});
