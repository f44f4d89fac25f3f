import assert from "node:assert/strict";
import {
  CURRENT_REPLY,
  FORECAST_REPLY,
  ONECALL_REPLY,
  UVI_REPLY,
} from "./_test_weather.ts";
import { bool, float, int } from "./sample.ts";
import {
  currentWeatherSamples,
  forecastSamples,
  uviSample,
} from "./weather_points.ts";

const time = new Date("2026-11-21T20:15:00Z");

Deno.test("currentWeatherSamples() gives the four outdoor points", () => {
  assert.deepEqual(currentWeatherSamples(CURRENT_REPLY, time), [
    {
      measurement: "home_pressure",
      location: "out",
      time,
      fields: { value: float(1016) },
    },
    {
      measurement: "home_humidity",
      location: "out",
      time,
      fields: { value: float(81) },
    },
    {
      measurement: "home_temperature",
      location: "out",
      time,
      fields: { value: float(12.5) },
    },
    {
      measurement: "home_rain",
      location: "out",
      time,
      fields: { value: bool(true), level: int(2) },
    },
  ]);
});

Deno.test("currentWeatherSamples() throws when a used field is missing", () => {
  assert.throws(
    () => currentWeatherSamples({ main: { temp: 1, humidity: 2 } }, time),
    /main\.pressure/,
  );
  assert.throws(() => currentWeatherSamples("text", time), /main\.pressure/);
});

Deno.test("uviSample() reads value (uvi) or current.uvi (onecall)", () => {
  assert.deepEqual(uviSample(UVI_REPLY, "uvi", time).fields, {
    value: float(3.42),
  });
  assert.deepEqual(uviSample(ONECALL_REPLY, "onecall", time).fields, {
    value: float(2.75),
  });
  assert.throws(() => uviSample(UVI_REPLY, "onecall", time), /current\.uvi/);
});

Deno.test("forecastSamples() gives one point per entry at its dt", () => {
  const samples = forecastSamples(FORECAST_REPLY);
  assert.deepEqual(samples.map((s) => s.time.toISOString()), [
    "2023-11-15T01:13:20.000Z",
    "2023-11-15T04:13:20.000Z",
    "2023-11-15T07:13:20.000Z",
  ]);
  assert.deepEqual(samples[0]!.fields, {
    temp: float(13.1),
    humidity: float(78),
    rain: bool(true),
    rain_level: int(1),
    pressure: float(1015),
  });
  assert.deepEqual(samples[1]!.fields.rain, bool(false));
  assert.deepEqual(samples[1]!.fields.rain_level, int(0));
  assert.deepEqual(samples[2]!.fields.rain_level, int(4));
  assert.ok(samples.every((s) => s.measurement === "home_weather_forecast"));
  assert.ok(samples.every((s) => s.location === "out"));
});

Deno.test("forecastSamples() throws on a reply without a list", () => {
  assert.throws(() => forecastSamples({ cod: "200" }), /no list/);
});

Deno.test("forecastSamples() skips only a malformed entry, saying which and why", () => {
  const [first, second, third] = FORECAST_REPLY.list;
  const skipped: [number, string][] = [];
  const samples = forecastSamples(
    {
      list: [
        first,
        { ...second, main: { temp: 1, humidity: 1 } },
        null,
        third,
      ],
    },
    (index, problem) => skipped.push([index, problem]),
  );
  assert.deepEqual(samples.map((s) => s.time.getTime() / 1000), [
    first!.dt,
    third!.dt,
  ]);
  assert.deepEqual(skipped, [
    [1, 'no number at "main.pressure"'],
    [2, 'no number at "dt"'],
  ]);
});
