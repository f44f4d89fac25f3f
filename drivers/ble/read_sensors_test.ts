import assert from "node:assert/strict";
import { withFakeClock } from "../../tests/_test_clock.ts";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createFakeScanner } from "./_test_scanner.ts";
import { parseBleSensors } from "./ble_sensor.ts";
import { readSensors } from "./read_sensors.ts";

const SENSORS = parseBleSensors(
  "kitchen=pvvx:A4:C1:38:C6:77:14,hall=bthome:A4:C1:38:00:00:02,garage=atc1441:A4:C1:38:00:00:03",
);
const PVVX = Uint8Array.from([
  0x14,
  0x77,
  0xc6,
  0x38,
  0xc1,
  0xa4,
  0xfc,
  0xff,
  0xda,
  0x1c,
  0xd1,
  0x0a,
  0x3f,
  0x9d,
  0x0d,
]);
const BTHOME = Uint8Array.from([0x40, 0x01, 0x61, 0x02, 0xca, 0x09]);

/** Tracks a promise's outcome without awaiting it. */
function track<T>(promise: Promise<T>) {
  const state: { settled: boolean; value?: T; error?: unknown } = {
    settled: false,
  };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

Deno.test("readSensors() serves every sensor with one scan and ends at the time-out without the missing one", async () => {
  await withFakeClock(async (clock) => {
    const scanner = createFakeScanner();
    const log = createMemoryLog();
    const result = track(
      readSensors(SENSORS, { scanner, timeoutMs: 5000, log }),
    );
    await clock.tickAsync(100);
    // A truncated frame of the hall sensor: one WARNING, however often it comes.
    for (let i = 0; i < 3; i++) {
      scanner.advertise({
        address: "a4:c1:38:00:00:02",
        serviceData: [{ uuid: "fcd2", data: BTHOME.subarray(0, 5) }],
      });
    }
    scanner.advertise({
      address: "A4:C1:38:C6:77:14",
      serviceData: [{ uuid: "181a", data: PVVX }],
    });
    // Someone else's thermometer, and the kitchen again (first reading kept).
    scanner.advertise({
      address: "11:22:33:44:55:66",
      serviceData: [{ uuid: "181a", data: PVVX }],
    });
    await clock.tickAsync(100);
    scanner.advertise({
      address: "a4c138000002",
      serviceData: [{ uuid: "fcd2", data: BTHOME }],
    });
    await clock.tickAsync(0);
    assert.equal(result.settled, false, "the garage was not heard yet");
    await clock.tickAsync(4800);
    assert.equal(result.settled, true);
    assert.deepEqual(
      [...result.value!.entries()],
      [
        ["kitchen", {
          temperature: -0.04,
          humidity: 73.86,
          voltage: 2.769,
          battery: 63,
          counter: 157,
        }],
        ["hall", { battery: 97, temperature: 25.06 }],
      ],
    );
    assert.deepEqual(log.at("WARNING"), [
      'BLE sensor "hall" (bthome) sent a frame that cannot be read: BTHome object 0x02 at byte 3 truncated: 1 of 2 bytes',
    ]);
    // One scan: started, restarted once at 2000 ms, closed at the time-out.
    assert.deepEqual(scanner.calls.map((c) => `${c.call}@${c.at}`), [
      "start@0",
      "stop@2000",
      "start@2000",
      "close@5000",
    ]);
    assert.equal(clock.countTimers(), 0);
  });
});

Deno.test("readSensors() ends as soon as each sensor has been heard", async () => {
  await withFakeClock(async (clock) => {
    const scanner = createFakeScanner();
    const sensors = SENSORS.slice(0, 2);
    const result = track(
      readSensors(sensors, { scanner, log: createMemoryLog() }),
    );
    await clock.tickAsync(300);
    scanner.advertise({
      address: "a4:c1:38:00:00:02",
      serviceData: [{ uuid: "fcd2", data: BTHOME }],
    });
    scanner.advertise({
      address: "a4:c1:38:c6:77:14",
      serviceData: [{ uuid: "181a", data: PVVX }],
    });
    await clock.tickAsync(0);
    assert.equal(result.value?.size, 2);
    assert.deepEqual(scanner.calls.at(-1), { call: "close", at: 300 });
    assert.equal(clock.countTimers(), 0);
  });
});

Deno.test("readSensors() rejects when Bluetooth is unavailable, and on abort", async () => {
  await withFakeClock(async (clock) => {
    const unavailable = new Error("Bluetooth is unavailable");
    const scanner = createFakeScanner({ failStart: () => unavailable });
    const failed = track(
      readSensors(SENSORS, { scanner, log: createMemoryLog() }),
    );
    await clock.tickAsync(0);
    assert.equal(failed.error, unavailable);
    const controller = new AbortController();
    const stopped = track(
      readSensors(SENSORS, {
        scanner: createFakeScanner(),
        signal: controller.signal,
        log: createMemoryLog(),
      }),
    );
    await clock.tickAsync(100);
    controller.abort(new Error("stopping"));
    await clock.tickAsync(0);
    assert.equal((stopped.error as Error).message, "stopping");
    assert.equal(clock.countTimers(), 0);
  });
});

Deno.test("readSensors() waits past a frame without temperature or humidity and merges it", async () => {
  await withFakeClock(async (clock) => {
    const scanner = createFakeScanner();
    const sensors = parseBleSensors(
      "hall=bthome:A4:C1:38:00:00:02,porch=bthome:A4:C1:38:00:00:04",
    );
    const result = track(
      readSensors(sensors, {
        scanner,
        timeoutMs: 5000,
        log: createMemoryLog(),
      }),
    );
    await clock.tickAsync(100);
    // BTHome packets of voltage (0x0C) only, and of battery (0x01) and voltage.
    scanner.advertise({
      address: "a4:c1:38:00:00:02",
      serviceData: [{
        uuid: "fcd2",
        data: Uint8Array.from([0x40, 0x0c, 0x02, 0x0c]),
      }],
    });
    scanner.advertise({
      address: "a4:c1:38:00:00:04",
      serviceData: [{
        uuid: "fcd2",
        data: Uint8Array.from([0x40, 0x01, 0x50, 0x0c, 0x02, 0x0c]),
      }],
    });
    await clock.tickAsync(100);
    scanner.advertise({
      address: "a4:c1:38:00:00:02",
      serviceData: [{ uuid: "fcd2", data: BTHOME }],
    });
    await clock.tickAsync(0);
    assert.equal(result.settled, false, "the porch gave no temperature yet");
    await clock.tickAsync(4800);
    assert.deepEqual([...result.value!.entries()], [
      ["hall", { voltage: 3.074, battery: 97, temperature: 25.06 }],
      // Out of time: its battery level is what it gave.
      ["porch", { battery: 80, voltage: 3.074 }],
    ]);
    assert.equal(clock.countTimers(), 0);
  });
});
