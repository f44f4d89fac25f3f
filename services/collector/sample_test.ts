import assert from "node:assert/strict";
import {
  bool,
  describeSample,
  float,
  int,
  type Sample,
  toLineProtocol,
} from "./sample.ts";

const rain: Sample = {
  measurement: "home_rain",
  location: "out",
  time: new Date("2026-11-21T20:15:00.123Z"),
  fields: { value: bool(true), level: int(2) },
};

Deno.test("toLineProtocol() writes booleans, integers and floats with their types", () => {
  assert.equal(
    toLineProtocol(rain),
    `home_rain,location=out level=2i,value=T ${
      Date.parse("2026-11-21T20:15:00.123Z")
    }`,
  );
  assert.equal(
    toLineProtocol({
      measurement: "home_humidity",
      location: "out",
      time: new Date(0),
      fields: { value: float(81) },
    }),
    "home_humidity,location=out value=81 0",
  );
});

Deno.test("toLineProtocol() throws on a field that cannot be written", () => {
  assert.throws(() =>
    toLineProtocol({ ...rain, fields: { value: float(Number.NaN) } })
  );
  assert.throws(() => toLineProtocol({ ...rain, fields: {} }), /no fields/);
});

Deno.test("describeSample() names time, measurement, location and fields", () => {
  assert.equal(
    describeSample(rain),
    'Write {"time":"2026-11-21T20:15:00.123Z","measurement":"home_rain","location":"out","fields":{"value":true,"level":2}}',
  );
});

Deno.test("toLineProtocol() and describeSample() carry the sensor tag of a BLE_SENSORS point", () => {
  const point: Sample = {
    measurement: "home_battery",
    location: "in",
    sensor: "kitchen",
    time: new Date(1000),
    fields: { value: float(80) },
  };
  assert.equal(
    toLineProtocol(point),
    "home_battery,location=in,sensor=kitchen value=80 1000",
  );
  assert.equal(
    describeSample(point),
    'Write {"time":"1970-01-01T00:00:01.000Z","measurement":"home_battery","location":"in","sensor":"kitchen","fields":{"value":80}}',
  );
});
