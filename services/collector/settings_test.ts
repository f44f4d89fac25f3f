import assert from "node:assert/strict";
import { parseSettings, type SettingsError } from "../../lib/settings.ts";
import { collectorSettings } from "./settings.ts";

Deno.test("collectorSettings needs only TSDB_HOST and has the documented defaults", () => {
  const settings = parseSettings(collectorSettings, { TSDB_HOST: "influx" });
  assert.equal(settings.COLLECTOR_SCHEDULE, "*/5 * * * *");
  assert.equal(settings.TSDB_PORT, 8086);
  assert.equal(settings.TSDB_API, "v1");
  assert.equal(settings.TSDB_BUFFER_LIMIT, 10_000);
  assert.equal(settings.WEATHER_BASE_URL, "https://api.openweathermap.org");
  assert.equal(settings.WEATHER_UVI_SOURCE, "uvi");
  assert.equal(settings.WEATHER_API_KEY, undefined);
  assert.equal(settings.TEMPERATURE_SENSOR, undefined);
  assert.throws(
    () => parseSettings(collectorSettings, {}),
    (error: SettingsError) => {
      assert.equal(error.problems.length, 1);
      assert.match(error.problems[0]!, /^Missing TSDB_HOST: /);
      return true;
    },
  );
});

Deno.test("collectorSettings rejects a malformed store host, API, UV source or thermometer", () => {
  assert.throws(
    () =>
      parseSettings(collectorSettings, {
        TEMPERATURE_SENSOR: "kitchen",
        TSDB_HOST: "ftp://influx",
        TSDB_API: "v3",
        WEATHER_UVI_SOURCE: "sky",
        WEATHER_API_KEY: "k",
      }),
    (error: SettingsError) => {
      assert.deepEqual(error.problems, [
        'Invalid TEMPERATURE_SENSOR "kitchen": expected a Bluetooth address such as AA:BB:CC:DD:EE:FF',
        'Invalid WEATHER_UVI_SOURCE "sky": expected one of uvi, onecall',
        'Invalid TSDB_HOST "ftp://influx": expected a host name or an http(s) base URL',
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
