/**
 * Decoding of the BeeWi Smart Temperature & Humidity sensor's advertisement.
 *
 * @module
 */

/** One reading of a BeeWi thermometer. */
export interface BeeWiReading {
  /** Temperature in °C, one decimal. */
  temperature: number;
  /** Relative humidity in %, 0 to 100. */
  humidity: number;
  /** Battery level in %. */
  battery: number;
}

/** The manufacturer data must reach the battery byte. */
const MIN_LENGTH = 13;

/**
 * Decodes the manufacturer data of a BeeWi advertisement: temperature in bytes 4-5
 * (little-endian signed, tenths of °C), humidity in byte 7 (capped at 100), battery
 * in byte 12. Returns `undefined` when the data is too short to hold a reading.
 *
 * @example
 * ```ts
 * decodeBeeWi(Uint8Array.of(5, 0, 0, 0, 0xd7, 0, 0, 55, 0, 0, 0, 0, 92));
 * // { temperature: 21.5, humidity: 55, battery: 92 }
 * ```
 */
export function decodeBeeWi(data: Uint8Array): BeeWiReading | undefined {
  if (data.length < MIN_LENGTH) return undefined;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return {
    temperature: view.getInt16(4, true) / 10,
    humidity: Math.min(view.getUint8(7), 100),
    battery: view.getUint8(12),
  };
}
