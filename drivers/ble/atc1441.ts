/**
 * The atc1441 advertisement format of the Xiaomi LYWSD03MMC custom firmware
 * (service data of UUID 0x181A, 13 bytes, big-endian).
 *
 * @module
 */
import { type Decoded, scaled, viewOf } from "./sensor_reading.ts";

/** Length of the atc1441 format's service data. */
const LENGTH = 13;

/**
 * Decodes the service data (after the UUID) of an atc1441 frame: MAC (6 bytes, in
 * order), temperature (int16 big-endian, 0.1 °C), humidity (uint8 %), battery level
 * (uint8 %), battery (uint16 big-endian, mV), frame counter (uint8).
 *
 * @example
 * ```ts
 * const hex = "a4c138c6771400d2375e0b8b0a";
 * const data = Uint8Array.from(hex.match(/../g)!, (byte) => parseInt(byte, 16));
 * decodeAtc1441(data).reading;
 * // { temperature: 21, humidity: 55, battery: 94, voltage: 2.955, counter: 10 }
 * ```
 */
export function decodeAtc1441(data: Uint8Array): Decoded {
  if (data.length !== LENGTH) {
    return {
      problem:
        `${data.length} bytes of 0x181A service data: expected ${LENGTH} (atc1441 format)${
          data.length === 15 ? "; the sensor sends the pvvx custom format" : ""
        }`,
    };
  }
  const view = viewOf(data);
  return {
    reading: {
      temperature: scaled(view.getInt16(6), 0.1),
      humidity: view.getUint8(8),
      battery: view.getUint8(9),
      voltage: scaled(view.getUint16(10), 0.001),
      counter: view.getUint8(12),
    },
  };
}
