/**
 * BTHome v2 advertisements (service data of UUID 0xFCD2), unencrypted: a device
 * information byte, then objects of one id byte and a little-endian value each.
 *
 * @module
 */
import {
  type Decoded,
  scaled,
  type SensorReading,
  viewOf,
} from "./sensor_reading.ts";

/** What the decoder keeps of an object: where it goes and how it scales. */
interface Measured {
  /** The reading's property. */
  readonly property: keyof SensorReading;
  /** Signed value. */
  readonly signed: boolean;
  /** Multiplier of the raw integer. */
  readonly factor: number;
}

const KEPT: Readonly<Record<number, Measured>> = {
  0x00: { property: "counter", signed: false, factor: 1 }, // packet id
  0x01: { property: "battery", signed: false, factor: 1 },
  0x02: { property: "temperature", signed: true, factor: 0.01 },
  0x03: { property: "humidity", signed: false, factor: 0.01 },
  0x04: { property: "pressure", signed: false, factor: 0.01 },
  0x0c: { property: "voltage", signed: false, factor: 0.001 },
  0x2e: { property: "humidity", signed: false, factor: 1 },
  0x45: { property: "temperature", signed: true, factor: 0.1 },
  0x57: { property: "temperature", signed: true, factor: 1 },
};

/**
 * Value length in bytes of each object id of the BTHome v2 format, so the objects
 * that are not kept are skipped. 0x53 (text) and 0x54 (raw) carry their own length.
 */
const SIZES: ReadonlyMap<number, number> = new Map(
  ([
    [
      1,
      "00 01 09 0f 10 11 15 16 17 18 19 1a 1b 1c 1d 1e 1f 20 21 22 23 24 25 26 27 28 29 2a 2b 2c 2d 2e 2f 3a 46 57 58 59 60",
    ],
    [
      2,
      "02 03 06 07 08 0c 0d 0e 12 13 14 3c 3d 3f 40 41 43 44 45 47 48 49 4a 51 52 56 5a 5d 5e 5f f0",
    ],
    [3, "04 05 0a 0b 42 4b f2"],
    [4, "3e 4c 4d 4e 4f 50 55 5b 5c f1"],
  ] as const).flatMap(([size, ids]) =>
    ids.split(" ").map((id) => [parseInt(id, 16), size] as const)
  ),
);

/**
 * Decodes the service data (after the UUID) of a BTHome v2 frame. Kept: packet id,
 * battery (%), temperature (0.01 °C and 0.1 °C), humidity (0.01 % and 1 %),
 * pressure (0.01 hPa), voltage (0.001 V); other objects are skipped. An encrypted
 * frame, another version, a truncated object, or an object id this decoder does not
 * know before any reading was found is a problem.
 *
 * @example
 * ```ts
 * const hex = "40003f015e02820803ac170c830b";
 * const data = Uint8Array.from(hex.match(/../g)!, (byte) => parseInt(byte, 16));
 * decodeBtHome(data).reading;
 * // { counter: 63, battery: 94, temperature: 21.78, humidity: 60.6, voltage: 2.947 }
 * ```
 */
export function decodeBtHome(data: Uint8Array): Decoded {
  if (data.length < 1) return { problem: "empty BTHome service data" };
  const info = data[0]!;
  const version = info >> 5;
  if (version !== 2) {
    return {
      problem: `BTHome version ${version} (device information 0x${
        hex(info)
      }): expected version 2`,
    };
  }
  if (info & 1) {
    return {
      problem:
        "encrypted BTHome frame: only unencrypted frames are read (turn encryption off on the sensor)",
    };
  }
  const view = viewOf(data);
  const reading: SensorReading = {};
  let found = false;
  let offset = 1;
  while (offset < data.length) {
    const id = data[offset]!;
    let start = offset + 1;
    let size = SIZES.get(id);
    if (id === 0x53 || id === 0x54) {
      // Text and raw objects carry their length in their first byte.
      size = data[start] ?? Infinity;
      start += 1;
    }
    if (size === undefined) {
      if (found) break; // a newer object: keep what came before it
      return {
        problem: `unknown BTHome object id 0x${hex(id)} at byte ${offset}`,
      };
    }
    if (start + size > data.length) {
      const missing = size === Infinity
        ? "its length byte is missing"
        : `${data.length - start} of ${size} bytes`;
      return {
        problem: `BTHome object 0x${
          hex(id)
        } at byte ${offset} truncated: ${missing}`,
      };
    }
    const kept = KEPT[id];
    if (kept && reading[kept.property] === undefined) {
      const raw = readInt(view, start, size, kept.signed);
      reading[kept.property] = scaled(raw, kept.factor);
      if (kept.property !== "counter") found = true;
    }
    offset = start + size;
  }
  if (!found) return { problem: "BTHome frame without a measurement" };
  return { reading };
}

/** A little-endian integer of 1 to 4 bytes. */
function readInt(
  view: DataView,
  offset: number,
  size: number,
  signed: boolean,
): number {
  let value = 0;
  for (let i = size - 1; i >= 0; i--) {
    value = value * 256 + view.getUint8(offset + i);
  }
  const top = 2 ** (8 * size);
  return signed && value >= top / 2 ? value - top : value;
}

function hex(byte: number): string {
  return byte.toString(16).padStart(2, "0").toUpperCase();
}
