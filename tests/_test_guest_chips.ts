/**
 * The emulated BMP280 of the kernel suites: `i2cset` lines that fill an `i2c-stub`
 * chip's registers with the datasheet's worked example, and the pressure the kernel's
 * bmp280 driver computes from them. Used by tests/kernel_pressure_test.ts and
 * tests/kernel_aarch64_test.ts.
 *
 * @module
 */
import {
  ADC_P,
  ADC_T,
  calibrationBytes,
  DATASHEET,
} from "../drivers/pressure/_test_bmp280_datasheet.ts";

/** The datasheet's pressure (kPa) as the kernel's bmp280 driver computes it. */
export const BMP280_KPA = 100.653253906;

/**
 * `i2cset` lines writing `bytes` from register `first` of the chip at `address`, in
 * hexadecimal: busybox's i2cset (the arm64 guest's) reads every number as hex.
 */
export function setRegisters(
  address: number,
  first: number,
  bytes: number[],
): string {
  return bytes.map((value, i) =>
    `i2cset -y 0 ${hex(address)} ${hex(first + i)} ${hex(value)} b`
  ).join("\n");
}

function hex(value: number): string {
  return `0x${value.toString(16).padStart(2, "0")}`;
}

/**
 * `i2cset` lines making the stub chip at `address` a BMP280: its chip id (0x58), the
 * datasheet's calibration words and its raw readings.
 */
export function bmp280Registers(address: number): string {
  const adcP = [ADC_P >> 12, (ADC_P >> 4) & 0xff, (ADC_P & 0x0f) << 4];
  const adcT = [ADC_T >> 12, (ADC_T >> 4) & 0xff, (ADC_T & 0x0f) << 4];
  return [
    setRegisters(address, 0xd0, [0x58]),
    setRegisters(address, 0x88, [...calibrationBytes(DATASHEET)]),
    setRegisters(address, 0xf7, [...adcP, ...adcT]),
  ].join("\n");
}
