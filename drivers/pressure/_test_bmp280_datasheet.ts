/**
 * The worked example of the BMP280 datasheet, shared by the driver tests.
 *
 * @module
 */
import type { Bmp280Calibration } from "./bmp280_compensation.ts";

/** The worked example of the BMP280 datasheet (BST-BMP280-DS001, section 3.12). */
export const DATASHEET: Bmp280Calibration = {
  T1: 27504,
  T2: 26435,
  T3: -1000,
  P1: 36477,
  P2: -10685,
  P3: 3024,
  P4: 2855,
  P5: 140,
  P6: -7,
  P7: 15500,
  P8: -14600,
  P9: 6000,
};
export const ADC_T = 519888;
export const ADC_P = 415148;

/** The calibration as the chip stores it from register 0x88. */
export function calibrationBytes(c: Bmp280Calibration): Uint8Array {
  const view = new DataView(new ArrayBuffer(24));
  const words = [c.T1, c.T2, c.T3, c.P1, c.P2, c.P3, c.P4, c.P5, c.P6, c.P7];
  [...words, c.P8, c.P9].forEach((w, i) =>
    view.setUint16(i * 2, w & 0xffff, true)
  );
  return new Uint8Array(view.buffer);
}
