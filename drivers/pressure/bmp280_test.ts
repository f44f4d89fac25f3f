import assert from "node:assert/strict";
import { createFakeI2cDevice } from "./_test_i2c_device.ts";
import { bmp280 } from "./bmp280.ts";
import { calibrationBytes, DATASHEET } from "./_test_bmp280_datasheet.ts";

const noWait = () => Promise.resolve();

function datasheetChip(extra: Record<number, number> = {}) {
  const registers: Record<number, number> = {
    0xd0: 0x58,
    0xf7: 0x65,
    0xf8: 0x5a,
    0xf9: 0xc0,
    0xfa: 0x7e,
    0xfb: 0xed,
    0xfc: 0x00,
    ...extra,
  };
  calibrationBytes(DATASHEET).forEach((b, i) => registers[0x88 + i] = b);
  return createFakeI2cDevice(registers);
}

Deno.test("bmp280.readPressure() triggers a forced measurement and returns hPa", async () => {
  const device = datasheetChip();
  const hpa = await bmp280.readPressure(device, noWait);
  assert.ok(Math.abs(hpa - 1006.5327) < 0.005, `pressure ${hpa} hPa`);
  assert.deepEqual(device.writes, [[0xf4, 0b001_011_01]]);
});

Deno.test("bmp280.readPressure() leaves a chip in normal mode as it is", async () => {
  const device = datasheetChip({ 0xf4: 0b101_101_11 });
  const hpa = await bmp280.readPressure(device, noWait);
  assert.ok(Math.abs(hpa - 1006.5327) < 0.005);
  assert.deepEqual(device.writes, []);
});

Deno.test("bmp280.readPressure() names the chip id it found instead", async () => {
  const device = datasheetChip({ 0xd0: 0xbd });
  await assert.rejects(
    bmp280.readPressure(device, noWait),
    /No BMP280 found: chip id is 0xbd, expected 0x58/,
  );
});

Deno.test("bmp280.readPressure() gives up when the measurement never ends", async () => {
  const device = datasheetChip({ 0xf3: 0x08 });
  await assert.rejects(
    bmp280.readPressure(device, noWait),
    /BMP280 measurement did not finish within 110 ms/,
  );
});
