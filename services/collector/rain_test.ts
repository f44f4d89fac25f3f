import assert from "node:assert/strict";
import { rainFromWeather } from "./rain.ts";

Deno.test("rainFromWeather() maps each rain icon to its level", () => {
  assert.deepEqual(rainFromWeather([{ icon: "09d" }]), {
    rain: true,
    level: 1,
  });
  assert.deepEqual(rainFromWeather([{ icon: "10d" }]), {
    rain: true,
    level: 2,
  });
  assert.deepEqual(rainFromWeather([{ icon: "11d" }]), {
    rain: true,
    level: 3,
  });
  assert.deepEqual(rainFromWeather([{ icon: "13d" }]), {
    rain: true,
    level: 4,
  });
});

Deno.test("rainFromWeather() gives no rain for other codes or no list", () => {
  for (const icon of ["01d", "04n", "09n", "10n", "50d", ""]) {
    assert.deepEqual(rainFromWeather([{ icon }]), { rain: false, level: 0 });
  }
  assert.deepEqual(rainFromWeather(undefined), { rain: false, level: 0 });
  assert.deepEqual(rainFromWeather([null, 3, {}]), { rain: false, level: 0 });
  assert.deepEqual(rainFromWeather([{ icon: "toString" }]), {
    rain: false,
    level: 0,
  });
});

Deno.test("rainFromWeather() lets the last matching entry win", () => {
  assert.deepEqual(
    rainFromWeather([{ icon: "13d" }, { icon: "09d" }, { icon: "01d" }]),
    { rain: true, level: 1 },
  );
  assert.deepEqual(rainFromWeather([{ icon: "09d" }, { icon: "11d" }]), {
    rain: true,
    level: 3,
  });
});
