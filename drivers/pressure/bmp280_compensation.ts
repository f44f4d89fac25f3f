/**
 * The BMP280's compensation formulas (datasheet BST-BMP280-DS001, section 3.11.3,
 * double-precision version): raw ADC readings and factory calibration to °C and Pa.
 *
 * @example
 * ```ts
 * // The datasheet's worked example (section 3.12).
 * const hex = "706b436718fc7d8e43d6d00b270b8c00f9ff8c3cf8c67017";
 * const calibration = parseBmp280Calibration(
 *   Uint8Array.from(hex.match(/../g)!, (byte) => parseInt(byte, 16)),
 * );
 * const { adcP, adcT } = parseBmp280Data(
 *   Uint8Array.of(0x65, 0x5a, 0xc0, 0x7e, 0xed, 0x00),
 * );
 * const { celsius, tFine } = bmp280Temperature(adcT, calibration); // 25.08 °C
 * bmp280PressurePa(adcP, tFine, calibration); // 100653.27 Pa
 * ```
 *
 * @module
 */

/** Factory calibration words read from registers 0x88 to 0x9f. */
export interface Bmp280Calibration {
  T1: number;
  T2: number;
  T3: number;
  P1: number;
  P2: number;
  P3: number;
  P4: number;
  P5: number;
  P6: number;
  P7: number;
  P8: number;
  P9: number;
}

/** Number of calibration bytes starting at register 0x88. */
export const BMP280_CALIBRATION_LENGTH = 24;

/**
 * Decodes the 24 calibration bytes (little-endian words; T1 and P1 unsigned, the
 * others signed).
 */
export function parseBmp280Calibration(bytes: Uint8Array): Bmp280Calibration {
  if (bytes.length < BMP280_CALIBRATION_LENGTH) {
    throw new Error(`Short BMP280 calibration: ${bytes.length} bytes`);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u = (offset: number) => view.getUint16(offset, true);
  const s = (offset: number) => view.getInt16(offset, true);
  return {
    T1: u(0),
    T2: s(2),
    T3: s(4),
    P1: u(6),
    P2: s(8),
    P3: s(10),
    P4: s(12),
    P5: s(14),
    P6: s(16),
    P7: s(18),
    P8: s(20),
    P9: s(22),
  };
}

/**
 * Decodes the six data bytes from register 0xf7 (press_msb, _lsb, _xlsb, temp_msb,
 * _lsb, _xlsb) into the 20-bit raw readings.
 */
export function parseBmp280Data(
  bytes: Uint8Array,
): { adcP: number; adcT: number } {
  if (bytes.length < 6) {
    throw new Error(`Short BMP280 data reading: ${bytes.length} bytes`);
  }
  const word = (i: number) =>
    (bytes[i]! << 12) | (bytes[i + 1]! << 4) | (bytes[i + 2]! >> 4);
  return { adcP: word(0), adcT: word(3) };
}

/** Temperature in °C and the fine temperature the pressure formula needs. */
export function bmp280Temperature(
  adcT: number,
  c: Bmp280Calibration,
): { celsius: number; tFine: number } {
  const var1 = (adcT / 16384 - c.T1 / 1024) * c.T2;
  const delta = adcT / 131072 - c.T1 / 8192;
  const var2 = delta * delta * c.T3;
  const tFine = var1 + var2;
  return { celsius: tFine / 5120, tFine };
}

/**
 * Pressure in Pa from the raw pressure reading and the fine temperature.
 *
 * @throws when the calibration would divide by zero (a chip that did not respond)
 */
export function bmp280PressurePa(
  adcP: number,
  tFine: number,
  c: Bmp280Calibration,
): number {
  let var1 = tFine / 2 - 64000;
  let var2 = var1 * var1 * c.P6 / 32768;
  var2 = var2 + var1 * c.P5 * 2;
  var2 = var2 / 4 + c.P4 * 65536;
  var1 = (c.P3 * var1 * var1 / 524288 + c.P2 * var1) / 524288;
  var1 = (1 + var1 / 32768) * c.P1;
  if (var1 === 0) {
    throw new Error("Invalid BMP280 calibration: dig_P1 reads as zero");
  }
  let p = 1048576 - adcP;
  p = (p - var2 / 4096) * 6250 / var1;
  var1 = c.P9 * p * p / 2147483648;
  var2 = p * c.P8 / 32768;
  return p + (var1 + var2 + c.P7) / 16;
}
