import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import {
  createIndoorStep,
  type ReadThermometer,
  seaLevelPressure,
} from "./indoor_step.ts";
import { float, type Sample } from "./sample.ts";

const time = new Date("2026-11-21T20:15:00Z");
const pressure = () => ({ read: () => Promise.resolve(1013.25) });
const thermometer: ReadThermometer = () =>
  Promise.resolve({ temperature: -3.5, humidity: 64 });

Deno.test("createIndoorStep() writes pressure, temperature and humidity", async () => {
  const log = createMemoryLog();
  const indoor = createIndoorStep({
    pressure,
    thermometer,
    timeoutMs: 100,
    log,
  });
  assert.deepEqual(await indoor(time), [
    {
      measurement: "home_pressure",
      location: "in",
      time,
      fields: { value: float(1013.25) },
    },
    {
      measurement: "home_temperature",
      location: "in",
      time,
      fields: { value: float(-3.5) },
    },
    {
      measurement: "home_humidity",
      location: "in",
      time,
      fields: { value: float(64) },
    },
  ]);
  assert.deepEqual(log.entries, []);
});

Deno.test("createIndoorStep() passes its time limit to the thermometer", async () => {
  const seen: number[] = [];
  const indoor = createIndoorStep({
    pressure: () => undefined,
    thermometer: ({ timeoutMs }) => {
      seen.push(timeoutMs);
      return Promise.resolve(undefined);
    },
    timeoutMs: 1234,
    log: createMemoryLog(),
  });
  assert.deepEqual(await indoor(time), []);
  assert.deepEqual(seen, [1234]);
});

Deno.test("createIndoorStep() still writes pressure when the thermometer fails", async (t) => {
  const cases: [string, ReadThermometer | undefined, RegExp][] = [
    [
      "rejects",
      () => Promise.reject(new Error("Bluetooth is unavailable")),
      /Bluetooth is unavailable/,
    ],
    ["no reading", () => Promise.resolve(undefined), /no reading within 50 ms/],
    [
      "hangs",
      () => new Promise(() => {}),
      /Thermometer gave no response within 80 ms/,
    ],
    ["not configured", undefined, /TEMPERATURE_SENSOR is not set/],
  ];
  for (const [name, read, reason] of cases) {
    await t.step(name, async () => {
      const log = createMemoryLog();
      const indoor = createIndoorStep({
        pressure,
        thermometer: read,
        missing: "TEMPERATURE_SENSOR is not set",
        timeoutMs: 50,
        graceMs: 30,
        log,
      });
      const samples = await indoor(time);
      assert.deepEqual(samples.map((s) => s.measurement), ["home_pressure"]);
      assert.equal(log.at("ERROR").length, 1);
      assert.match(
        log.at("ERROR")[0]!,
        /^Indoor step: no temperature reading: /,
      );
      assert.match(log.at("ERROR")[0]!, reason);
    });
  }
});

Deno.test("createIndoorStep() still writes the temperature when pressure fails", async (t) => {
  const cases: [string, () => { read(): Promise<number> }, RegExp][] = [
    ["setup throws", () => {
      throw new Error('No IIO device with a pressure channel under "/sys"');
    }, /No IIO device/],
    [
      "read rejects",
      () => ({ read: () => Promise.reject(new Error("EIO")) }),
      /EIO/,
    ],
    [
      "not a number",
      () => ({ read: () => Promise.resolve(NaN) }),
      /returned "NaN"/,
    ],
    [
      "hangs",
      () => ({ read: () => new Promise<number>(() => {}) }),
      /no response/,
    ],
  ];
  for (const [name, source, reason] of cases) {
    await t.step(name, async () => {
      const log = createMemoryLog();
      const indoor = createIndoorStep({
        pressure: source,
        thermometer,
        timeoutMs: 20,
        graceMs: 20,
        log,
      });
      const samples = await indoor(time);
      assert.deepEqual(samples.map((s) => s.measurement), [
        "home_temperature",
        "home_humidity",
      ]);
      assert.match(log.at("ERROR")[0]!, /^Indoor step: no pressure reading: /);
      assert.match(log.at("ERROR")[0]!, reason);
    });
  }
});

Deno.test("createIndoorStep() aborts the thermometer when the pass is stopped", async () => {
  const log = createMemoryLog();
  const stop = new AbortController();
  let aborted = false;
  const indoor = createIndoorStep({
    pressure: () => undefined,
    thermometer: ({ signal }) =>
      new Promise((resolve) => {
        signal.addEventListener("abort", () => {
          aborted = true;
          resolve(undefined);
        });
      }),
    timeoutMs: 60_000,
    log,
  });
  const pass = indoor(time, stop.signal);
  stop.abort();
  assert.deepEqual(await pass, []);
  assert.equal(aborted, true);
  // A stop is not a failure: DEBUG only.
  assert.deepEqual(log.at("ERROR"), []);
  assert.match(
    log.at("DEBUG").join("\n"),
    /^Indoor step: temperature read stopped: /m,
  );
});

Deno.test("createIndoorStep() abandons a hung scan after the reader's 20 s plus grace", async () => {
  const clock = FakeTimers.install({
    toFake: ["setTimeout", "clearTimeout", "Date"],
  });
  try {
    const log = createMemoryLog();
    const indoor = createIndoorStep({
      pressure,
      thermometer: () => new Promise(() => {}),
      timeoutMs: 20_000,
      log,
    });
    let samples: Sample[] | undefined;
    const pass = indoor(time).then((result) => samples = result);
    await clock.tickAsync(24_999);
    assert.equal(samples, undefined);
    await clock.tickAsync(1);
    await pass;
    assert.deepEqual(samples!.map((s) => s.measurement), ["home_pressure"]);
    assert.deepEqual(log.at("ERROR"), [
      "Indoor step: no temperature reading: Thermometer gave no response within 25000 ms",
    ]);
  } finally {
    clock.uninstall();
  }
});

Deno.test("seaLevelPressure() matches values computed by hand", () => {
  // P0 = P / (1 - h / 44330)^5.255, worked out separately to 0.01 hPa.
  const cases: [number, number, number][] = [
    [950, 650, 1026.68],
    [1000, 100, 1011.94],
    [800, 2000, 1019.65],
    [1013.25, 0, 1013.25],
  ];
  for (const [hPa, metres, expected] of cases) {
    assert.equal(
      Math.round(seaLevelPressure(hPa, metres) * 100) / 100,
      expected,
      `${hPa} hPa at ${metres} m`,
    );
  }
});

Deno.test("createIndoorStep() adds sea_level to home_pressure when the altitude is set", async () => {
  const log = createMemoryLog();
  const indoor = createIndoorStep({
    pressure: () => ({ read: () => Promise.resolve(950) }),
    timeoutMs: 100,
    altitudeM: 650,
    log,
  });
  const [point] = await indoor(time);
  assert.equal(point?.measurement, "home_pressure");
  assert.deepEqual(Object.keys(point!.fields), ["value", "sea_level"]);
  assert.equal(point!.fields.value!.value, 950);
  const seaLevel = point!.fields.sea_level!.value as number;
  assert.ok(Math.abs(seaLevel - 1026.68) < 0.005, `${seaLevel}`);
});

Deno.test("createIndoorStep() abandons a hung BLE_SENSORS scan and still writes the pressure", async () => {
  const log = createMemoryLog();
  const indoor = createIndoorStep({
    pressure,
    sensors: {
      names: ["kitchen", "hall"],
      read: ({ signal }) =>
        new Promise((_, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason))
        ),
    },
    timeoutMs: 20,
    graceMs: 10,
    log,
  });
  const samples = await indoor(time);
  assert.deepEqual(samples.map((s) => s.measurement), ["home_pressure"]);
  assert.deepEqual(log.at("ERROR"), [
    "Indoor step: no reading from the BLE sensors (kitchen, hall): BLE sensor scan gave no response within 30 ms",
  ]);
});

Deno.test("createIndoorStep() writes only what a sensor's frame carried", async () => {
  const log = createMemoryLog();
  const indoor = createIndoorStep({
    pressure: () => undefined,
    sensors: {
      names: ["hall"],
      read: () =>
        Promise.resolve(
          new Map([["hall", { temperature: 19.5, pressure: 1000 }]]),
        ),
    },
    timeoutMs: 100,
    log,
  });
  assert.deepEqual(await indoor(time), [{
    measurement: "home_temperature",
    location: "in",
    sensor: "hall",
    time,
    fields: { value: float(19.5) },
  }]);
  assert.deepEqual(log.entries, []);
});
