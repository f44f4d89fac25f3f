import assert from "node:assert/strict";
import { decodeBeeWi } from "./beewi.ts";

/** A BeeWi advertisement's manufacturer data with the given payload bytes. */
function sample(
  temperature: [number, number],
  humidity: number,
  battery: number,
) {
  return Uint8Array.of(
    0x05,
    0x00,
    0x02,
    0x00, // header and flags (not decoded)
    ...temperature,
    0x02,
    humidity,
    0x05,
    0x00,
    0x00,
    0x00,
    battery,
  );
}

Deno.test("decodeBeeWi()", async (t) => {
  await t.step("reads temperature, humidity and battery", () => {
    assert.deepEqual(decodeBeeWi(sample([0xd7, 0x00], 55, 92)), {
      temperature: 21.5,
      humidity: 55,
      battery: 92,
    });
  });
  await t.step("reads negative temperatures as signed 16-bit", () => {
    assert.equal(decodeBeeWi(sample([0xcb, 0xff], 80, 70))?.temperature, -5.3);
    assert.equal(decodeBeeWi(sample([0xff, 0xff], 80, 70))?.temperature, -0.1);
    assert.equal(
      decodeBeeWi(sample([0x00, 0x80], 80, 70))?.temperature,
      -3276.8,
    );
  });
  await t.step("reads temperature little-endian", () => {
    assert.equal(decodeBeeWi(sample([0x01, 0x01], 40, 70))?.temperature, 25.7);
  });
  await t.step("caps humidity at 100", () => {
    assert.equal(decodeBeeWi(sample([0xd7, 0x00], 0xc8, 92))?.humidity, 100);
  });
  await t.step("returns undefined for data too short to hold a reading", () => {
    assert.equal(decodeBeeWi(new Uint8Array()), undefined);
    assert.equal(
      decodeBeeWi(sample([0xd7, 0x00], 55, 92).subarray(0, 12)),
      undefined,
    );
  });
  await t.step("honours the offset of a view into a larger buffer", () => {
    const buffer = new Uint8Array(20);
    buffer.set(sample([0x64, 0x00], 30, 50), 7);
    assert.deepEqual(decodeBeeWi(buffer.subarray(7)), {
      temperature: 10,
      humidity: 30,
      battery: 50,
    });
  });
});
