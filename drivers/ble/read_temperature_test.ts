import assert from "node:assert/strict";
import { withFakeClock } from "../../tests/_test_clock.ts";
import { createFakeScanner } from "./_test_scanner.ts";
import { readTemperature } from "./read_temperature.ts";
import type { Scanner } from "./scanner.ts";

const ADDRESS = "AA:BB:CC:DD:EE:FF";
/** BeeWi manufacturer data: 21.5 °C, 55 %, battery 92 %. */
const DATA = Uint8Array.of(5, 0, 2, 0, 0xd7, 0, 2, 55, 5, 0, 0, 0, 92);

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

Deno.test("readTemperature() resolves the first decoded advertisement of the sensor", async () => {
  await withFakeClock(async (clock) => {
    const scanner = createFakeScanner();
    const result = track(readTemperature(ADDRESS, { scanner }));
    await clock.tickAsync(500);
    scanner.advertise({ address: "11:22:33:44:55:66", manufacturerData: DATA });
    scanner.advertise({ address: "aa:bb:cc:dd:ee:ff" });
    scanner.advertise({
      address: "aa:bb:cc:dd:ee:ff",
      manufacturerData: DATA.subarray(0, 8),
    });
    await clock.tickAsync(0);
    assert.equal(
      result.settled,
      false,
      "others, no data and short data are ignored",
    );
    // Matched case-insensitively, without colons.
    scanner.advertise({ address: "aabbccddeeff", manufacturerData: DATA });
    await clock.tickAsync(0);
    assert.deepEqual(result.value, {
      temperature: 21.5,
      humidity: 55,
      battery: 92,
    });
    assert.deepEqual(scanner.calls, [
      { call: "start", at: 0 },
      { call: "close", at: 500 },
    ]);
    assert.equal(clock.countTimers(), 0, "no timer left behind");
  });
});

Deno.test("readTemperature() restarts the scan after 2000 ms and ends silently after 20000 ms", async () => {
  await withFakeClock(async (clock) => {
    const scanner = createFakeScanner();
    const result = track(readTemperature("aa:bb:cc:dd:ee:ff", { scanner }));
    await clock.tickAsync(1999);
    assert.deepEqual(scanner.calls.map((c) => c.call), ["start"]);
    await clock.tickAsync(1);
    assert.deepEqual(scanner.calls, [
      { call: "start", at: 0 },
      { call: "stop", at: 2000 },
      { call: "start", at: 2000 },
    ]);
    await clock.tickAsync(17999);
    assert.equal(result.settled, false);
    await clock.tickAsync(1);
    assert.equal(result.settled, true);
    assert.equal(result.error, undefined);
    assert.equal(result.value, undefined);
    assert.deepEqual(scanner.calls.at(-1), { call: "close", at: 20000 });
    assert.equal(scanner.calls.length, 4, "the scan is restarted once");
    assert.equal(clock.countTimers(), 0);
  });
});

Deno.test("readTemperature() reads after the restart and honours custom timings", async () => {
  await withFakeClock(async (clock) => {
    const scanner = createFakeScanner();
    const result = track(
      readTemperature(ADDRESS, { scanner, restartMs: 100, timeoutMs: 1000 }),
    );
    await clock.tickAsync(100);
    assert.deepEqual(scanner.calls.map((c) => `${c.call}@${c.at}`), [
      "start@0",
      "stop@100",
      "start@100",
    ]);
    await clock.tickAsync(400);
    scanner.advertise({ address: ADDRESS, manufacturerData: DATA });
    await clock.tickAsync(0);
    assert.equal(result.value?.temperature, 21.5);
    const timeout = track(
      readTemperature(ADDRESS, {
        scanner: createFakeScanner(),
        timeoutMs: 1000,
      }),
    );
    await clock.tickAsync(1000);
    assert.deepEqual(timeout, { settled: true, value: undefined });
  });
});

Deno.test("readTemperature() rejects clearly when Bluetooth is unavailable", async () => {
  await withFakeClock(async (clock) => {
    const unavailable = new Error(
      'Bluetooth is unavailable: adapter state "unsupported"',
    );
    const scanner = createFakeScanner({ failStart: () => unavailable });
    const result = track(readTemperature(ADDRESS, { scanner }));
    await clock.tickAsync(0);
    assert.equal(result.error, unavailable);
    assert.deepEqual(scanner.calls.map((c) => c.call), ["start", "close"]);
    assert.equal(clock.countTimers(), 0);

    // The adapter going away before the restart fails the read too.
    const later = createFakeScanner({
      failStart: (n) => n === 2 ? unavailable : undefined,
    });
    const restarted = track(readTemperature(ADDRESS, { scanner: later }));
    await clock.tickAsync(2000);
    assert.equal(restarted.error, unavailable);
    assert.deepEqual(later.calls.map((c) => c.call), [
      "start",
      "stop",
      "start",
      "close",
    ]);
  });
});

Deno.test("readTemperature() rejects a malformed address before scanning", async () => {
  const scanner = createFakeScanner();
  await assert.rejects(readTemperature("kitchen", { scanner }), {
    message:
      'Invalid Bluetooth address "kitchen": expected six hex pairs such as AA:BB:CC:DD:EE:FF',
  });
  assert.deepEqual(scanner.calls, []);
});

Deno.test("readTemperature() stops on abort and closes the scanner", async () => {
  await withFakeClock(async (clock) => {
    const scanner = createFakeScanner();
    const controller = new AbortController();
    const result = track(
      readTemperature(ADDRESS, { scanner, signal: controller.signal }),
    );
    await clock.tickAsync(5000);
    controller.abort(new Error("stopping"));
    await clock.tickAsync(0);
    assert.equal((result.error as Error).message, "stopping");
    assert.equal(scanner.calls.at(-1)?.call, "close");
    assert.equal(clock.countTimers(), 0);
    await assert.rejects(
      readTemperature(ADDRESS, { scanner, signal: controller.signal }),
      /stopping/,
    );
  });
});

Deno.test("readTemperature() stops when aborted while the scanner is made", async (t) => {
  /** A scanner factory that takes 1000 ms, as loading noble may. */
  const slowFactory = (scanner: Scanner) => () =>
    new Promise<Scanner>((resolve) => setTimeout(() => resolve(scanner), 1000));

  await t.step(
    "it closes the new scanner and rejects with the reason",
    async () => {
      await withFakeClock(async (clock) => {
        const scanner = createFakeScanner();
        const controller = new AbortController();
        const result = track(
          readTemperature(ADDRESS, {
            createScanner: slowFactory(scanner),
            signal: controller.signal,
          }),
        );
        await clock.tickAsync(500);
        controller.abort(new Error("stopping"));
        await clock.tickAsync(500);
        assert.equal(result.settled, true, "settled once the scanner is made");
        assert.equal((result.error as Error).message, "stopping");
        assert.deepEqual(scanner.calls, [{ call: "close", at: 1000 }]);
        assert.equal(clock.countTimers(), 0, "no time-out left running");
      });
    },
  );

  await t.step("without an abort it scans with the scanner made", async () => {
    await withFakeClock(async (clock) => {
      const scanner = createFakeScanner();
      const result = track(
        readTemperature(ADDRESS, { createScanner: slowFactory(scanner) }),
      );
      await clock.tickAsync(1000);
      scanner.advertise({ address: ADDRESS, manufacturerData: DATA });
      await clock.tickAsync(0);
      assert.equal(result.value?.temperature, 21.5);
      assert.deepEqual(scanner.calls.map((c) => `${c.call}@${c.at}`), [
        "start@1000",
        "close@1000",
      ]);
    });
  });
});
