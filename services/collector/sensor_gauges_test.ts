import assert from "node:assert/strict";
import { createRegistry } from "../../lib/metrics/registry.ts";
import { bool, float, type Sample } from "./sample.ts";
import { sensorGauges } from "./sensor_gauges.ts";

const time = new Date("2026-07-01T12:00:00Z");
const point = (
  measurement: string,
  fields: Sample["fields"],
  sensor?: string,
  location: "in" | "out" = "in",
): Sample => ({ measurement, location, sensor, time, fields });

Deno.test("sensorGauges() exports each sensor's latest reading in base units", async () => {
  const registry = createRegistry();
  const record = sensorGauges(registry.with({ role: "collector" }));
  record([
    point("home_temperature", { value: float(21.5) }, "attic"),
    point("home_humidity", { value: float(45) }, "attic"),
    point("home_battery", { value: float(87) }, "attic"),
    point("home_pressure", { value: float(1013.25), sea_level: float(1020) }),
    point("home_temperature", { value: float(9.5) }, undefined, "out"),
    point("home_rain", { value: bool(true) }, undefined, "out"),
    point("home_temperature", { value: float(20) }, 'bad"name\nx'),
  ]);
  const text = await registry.render();
  const at = (name: string, labels: string) =>
    text.match(
      new RegExp(`^${name}\\{role="collector",${labels}\\} (\\S+)$`, "m"),
    )?.[1];
  assert.equal(
    at("homewire_sensor_temperature_celsius", 'sensor="attic",location="in"'),
    "21.5",
  );
  assert.equal(
    at("homewire_sensor_humidity_ratio", 'sensor="attic",location="in"'),
    "0.45",
  );
  assert.equal(
    at("homewire_sensor_battery_ratio", 'sensor="attic",location="in"'),
    "0.87",
  );
  assert.equal(
    at("homewire_sensor_pressure_pascals", 'sensor="in",location="in"'),
    "101325",
  );
  assert.equal(
    at(
      "homewire_sensor_sea_level_pressure_pascals",
      'sensor="in",location="in"',
    ),
    "102000",
  );
  assert.equal(
    at("homewire_sensor_temperature_celsius", 'sensor="out",location="out"'),
    "9.5",
  );
  assert.equal(
    at(
      "homewire_sensor_last_read_timestamp_seconds",
      'sensor="attic",location="in"',
    ),
    String(time.getTime() / 1000),
  );
  assert.ok(
    text.includes(
      'homewire_sensor_temperature_celsius{role="collector",sensor="bad\\"name\\nx",location="in"} 20\n',
    ),
  );
  assert.doesNotMatch(text, /rain/);
});

Deno.test("sensorGauges() keeps the latest read time when points come late", async () => {
  const registry = createRegistry();
  const record = sensorGauges(registry);
  record([point("home_temperature", { value: float(1) }, "a")]);
  record([{
    ...point("home_temperature", { value: float(2) }, "a"),
    time: new Date(0),
  }]);
  const text = await registry.render();
  assert.match(
    text,
    new RegExp(
      `^homewire_sensor_last_read_timestamp_seconds\\{sensor="a",location="in"\\} ${
        time.getTime() / 1000
      }$`,
      "m",
    ),
  );
});
