import assert from "node:assert/strict";
import {
  discoveryConfigs,
  readingPayload,
  readingTopic,
} from "./home_assistant.ts";
import { bool, float, int, type Sample } from "./sample.ts";

const time = new Date("2026-11-21T20:15:00Z");

Deno.test("readingTopic() and readingPayload() give the topic and JSON of a reading", () => {
  const kitchen: Sample = {
    measurement: "home_humidity",
    location: "in",
    sensor: "kitchen",
    time,
    fields: { value: float(45.5) },
  };
  assert.equal(readingTopic(kitchen), "homewire/home_humidity/in/kitchen");
  assert.equal(
    readingPayload(kitchen),
    '{"time":"2026-11-21T20:15:00.000Z","value":45.5}',
  );
  const rain: Sample = {
    measurement: "home_rain",
    location: "out",
    time,
    fields: { value: bool(true), level: int(2) },
  };
  assert.equal(readingTopic(rain), "homewire/home_rain/out");
  assert.equal(
    readingPayload(rain),
    '{"time":"2026-11-21T20:15:00.000Z","value":true,"level":2}',
  );
});

Deno.test("discoveryConfigs() announces a BLE sensor's battery under the prefix", () => {
  const configs = discoveryConfigs({
    measurement: "home_battery",
    location: "in",
    sensor: "kitchen",
    time,
    fields: { value: float(80) },
  }, "ha");
  assert.deepEqual(configs.map((c) => c.topic), [
    "ha/sensor/homewire_in_kitchen/home_battery_value/config",
  ]);
  assert.deepEqual(JSON.parse(configs[0]!.payload), {
    name: "Battery",
    unique_id: "homewire_in_kitchen_home_battery_value",
    default_entity_id: "sensor.homewire_in_kitchen_home_battery_value",
    state_topic: "homewire/home_battery/in/kitchen",
    value_template: "{{ value_json.value }}",
    device_class: "battery",
    unit_of_measurement: "%",
    state_class: "measurement",
    availability_topic: "homewire/status",
    payload_available: "online",
    payload_not_available: "offline",
    device: {
      identifiers: ["homewire_in_kitchen"],
      name: "homewire kitchen",
      manufacturer: "homewire",
      model: "BLE thermometer",
    },
  });
});

Deno.test("discoveryConfigs() makes rain a binary sensor and skips the forecast", () => {
  const rain = discoveryConfigs({
    measurement: "home_rain",
    location: "out",
    time,
    fields: { value: bool(false), level: int(0) },
  }, "homeassistant");
  assert.deepEqual(rain.map((c) => c.topic), [
    "homeassistant/binary_sensor/homewire_out/home_rain_value/config",
    "homeassistant/sensor/homewire_out/home_rain_level/config",
  ]);
  const value = JSON.parse(rain[0]!.payload);
  assert.equal(
    value.value_template,
    "{{ 'ON' if value_json.value else 'OFF' }}",
  );
  assert.equal(value.device_class, "moisture");
  assert.equal(value.state_class, undefined);
  assert.deepEqual(
    discoveryConfigs({
      measurement: "home_weather_forecast",
      location: "out",
      time,
      fields: { temp: float(3) },
    }, "homeassistant"),
    [],
  );
});

Deno.test("discoveryConfigs() gives each entity a default_entity_id Home Assistant accepts", () => {
  const [temperature] = discoveryConfigs({
    measurement: "home_temperature",
    location: "in",
    sensor: "Hall-2",
    time: new Date(0),
    fields: { value: float(21.5) },
  }, "homeassistant");
  const config = JSON.parse(temperature!.payload);
  assert.equal(
    config.default_entity_id,
    "sensor.homewire_in_hall_2_home_temperature_value",
  );
  assert.equal(config.unique_id, "homewire_in_Hall-2_home_temperature_value");
  assert.equal("object_id" in config, false);
  const [rain] = discoveryConfigs({
    measurement: "home_rain",
    location: "out",
    time: new Date(0),
    fields: { value: bool(true) },
  }, "homeassistant");
  assert.equal(
    JSON.parse(rain!.payload).default_entity_id,
    "binary_sensor.homewire_out_home_rain_value",
  );
});
