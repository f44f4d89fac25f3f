import assert from "node:assert/strict";
import { createFakeI2cDevice } from "./_test_i2c_device.ts";
import { lps25h, lps25hPressureHpa } from "./lps25h.ts";

const noWait = () => Promise.resolve();

Deno.test("lps25hPressureHpa() divides the 24-bit reading by 4096", () => {
  // 0x3f5000 = 4149248 = 1013 hPa * 4096
  assert.equal(lps25hPressureHpa(Uint8Array.of(0x00, 0x50, 0x3f)), 1013);
  assert.equal(lps25hPressureHpa(Uint8Array.of(0x00, 0x08, 0x00)), 0.5);
  assert.equal(lps25hPressureHpa(Uint8Array.of(0xff, 0xff, 0xff)), -1 / 4096);
  assert.throws(
    () => lps25hPressureHpa(Uint8Array.of(1, 2)),
    /Short LPS25H pressure reading: 2 bytes/,
  );
});

function chip(registers: Record<number, number>) {
  // The one-shot bit clears itself once the sample is ready.
  return createFakeI2cDevice({ 0x0f: 0xbd, ...registers }, {
    addressMask: 0x7f,
    onWrite(map, register) {
      if (register === 0x21) {
        map.set(0x21, 0);
        map.set(0x28, 0x00).set(0x29, 0x50).set(0x2a, 0x3f);
      }
    },
  });
}

Deno.test("lps25h.readPressure() powers on, runs one shot and reads with auto-increment", async () => {
  const device = chip({});
  assert.equal(await lps25h.readPressure(device, noWait), 1013);
  assert.deepEqual(device.writes, [[0x20, 0x84], [0x21, 0x01]]);
});

Deno.test("lps25h.readPressure() reads a continuously running chip without reconfiguring it", async () => {
  const device = chip({ 0x20: 0xc4, 0x28: 0x00, 0x29: 0x08, 0x2a: 0x3f });
  assert.equal(await lps25h.readPressure(device, noWait), 0x3f0800 / 4096);
  assert.deepEqual(device.writes, []);
});

Deno.test("lps25h.readPressure() rejects another chip by its WHO_AM_I", async () => {
  await assert.rejects(
    lps25h.readPressure(chip({ 0x0f: 0x58 }), noWait),
    /No LPS25H found: WHO_AM_I is 0x58, expected 0xbd/,
  );
});
