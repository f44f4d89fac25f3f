/**
 * What a BLE thermometer's advertisement decodes to, whatever its format, and the
 * outcome of decoding one frame.
 *
 * @module
 */

/** One reading of a BLE thermometer; a format fills in what it carries. */
export interface SensorReading {
  /** Temperature in °C. */
  temperature?: number;
  /** Relative humidity in %. */
  humidity?: number;
  /** Battery level in %. */
  battery?: number;
  /** Battery voltage in V. */
  voltage?: number;
  /** Pressure in hPa (BTHome). */
  pressure?: number;
  /** The sender's frame or packet counter. */
  counter?: number;
}

/** A decoded frame, or why it could not be decoded (malformed, truncated). */
export type Decoded =
  | { readonly reading: SensorReading; readonly problem?: undefined }
  | { readonly problem: string; readonly reading?: undefined };

/** A decoder of one advertisement format's payload. */
export type Decoder = (data: Uint8Array) => Decoded;

/**
 * A {@linkcode DataView} over `data` (over its own bytes, when it is a view of a
 * larger buffer).
 *
 * @example
 * ```ts
 * viewOf(Uint8Array.of(0xd7, 0x00)).getInt16(0, true); // 215
 * ```
 */
export function viewOf(data: Uint8Array): DataView {
  return new DataView(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Rounds away the float noise of a scaled integer.
 *
 * @example
 * ```ts
 * 23 * 0.1; // 2.3000000000000003
 * scaled(23, 0.1); // 2.3
 * ```
 */
export function scaled(raw: number, factor: number): number {
  return Number((raw * factor).toFixed(6));
}
