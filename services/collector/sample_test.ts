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
