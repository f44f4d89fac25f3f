/**
 * The pvvx custom advertisement format of the Xiaomi LYWSD03MMC custom firmware
 * (service data of UUID 0x181A, 15 bytes, little-endian).
 *
 * @module
 */
import { type Decoded, scaled, viewOf } from "./sensor_reading.ts";

/** Length of the pvvx custom format's service data. */
const LENGTH = 15;

/**
 * Decodes the service data (after the UUID) of a pvvx custom frame: MAC (6 bytes,
 * reversed), temperature (int16, 0.01 °C), humidity (uint16, 0.01 %), battery
 * (uint16 mV), battery level (uint8 %), measurement counter (uint8), flags (uint8).
 *
 * @example
 * ```ts
 * const hex = "1477c638c1a4fcffda1cd10a3f9d0d";
 * const data = Uint8Array.from(hex.match(/../g)!, (byte) => parseInt(byte, 16));
 * decodePvvx(data).reading;
 * // { temperature: -0.04, humidity: 73.86, voltage: 2.769, battery: 63, counter: 157 }
 * ```
 */
export function decodePvvx(data: Uint8Array): Decoded {
  if (data.length !== LENGTH) {
    return {
      problem:
        `${data.length} bytes of 0x181A service data: expected ${LENGTH} (pvvx custom format)${
          data.length === 13 ? "; the sensor sends the atc1441 format" : ""
        }`,
    };
  }
  const view = viewOf(data);
  return {
    reading: {
      temperature: scaled(view.getInt16(6, true), 0.01),
      humidity: scaled(view.getUint16(8, true), 0.01),
      voltage: scaled(view.getUint16(10, true), 0.001),
      battery: view.getUint8(12),
      counter: view.getUint8(13),
    },
  };
}
