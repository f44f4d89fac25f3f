import assert from "node:assert/strict";
import {
  bmp280PressurePa,
  bmp280Temperature,
  parseBmp280Calibration,
  parseBmp280Data,
} from "./bmp280_compensation.ts";
import {
  ADC_P,
  ADC_T,
  calibrationBytes,
  DATASHEET,
} from "./_test_bmp280_datasheet.ts";

Deno.test("bmp280Temperature() matches the datasheet's worked example", () => {
  const { celsius, tFine } = bmp280Temperature(ADC_T, DATASHEET);
  assert.equal(Math.round(celsius * 100) / 100, 25.08);
  assert.ok(Math.abs(tFine - 128422) < 1, `t_fine ${tFine}`);
});

Deno.test("bmp280PressurePa() matches the datasheet's worked example", () => {
  const { tFine } = bmp280Temperature(ADC_T, DATASHEET);
  const pa = bmp280PressurePa(ADC_P, tFine, DATASHEET);
  assert.ok(Math.abs(pa - 100653.27) < 0.5, `pressure ${pa} Pa`);
  assert.equal(Math.round(pa), 100653);
});

Deno.test("bmp280PressurePa() rejects a zero dig_P1 instead of dividing by zero", () => {
  assert.throws(
    () => bmp280PressurePa(ADC_P, 128422, { ...DATASHEET, P1: 0 }),
    /Invalid BMP280 calibration: dig_P1 reads as zero/,
  );
});

Deno.test("parseBmp280Calibration() reads unsigned T1/P1 and signed words", () => {
  assert.deepEqual(
    parseBmp280Calibration(calibrationBytes(DATASHEET)),
    DATASHEET,
  );
  assert.throws(
    () => parseBmp280Calibration(new Uint8Array(10)),
    /Short BMP280 calibration: 10 bytes/,
  );
});

Deno.test("parseBmp280Data() assembles the 20-bit readings", () => {
  const bytes = Uint8Array.of(0x65, 0x5a, 0xc0, 0x7e, 0xed, 0x00);
  assert.deepEqual(parseBmp280Data(bytes), { adcP: ADC_P, adcT: ADC_T });
  assert.throws(
    () => parseBmp280Data(new Uint8Array(5)),
    /Short BMP280 data reading/,
  );
});
