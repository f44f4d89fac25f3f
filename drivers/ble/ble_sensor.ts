/**
 * The BLE thermometers of `BLE_SENSORS`: their kinds, the setting's syntax, and which
 * part of an advertisement each kind is decoded from.
 *
 * @module
 */
import { decodeAtc1441 } from "./atc1441.ts";
import { decodeBeeWi } from "./beewi.ts";
import { decodeBtHome } from "./bthome.ts";
import { normalizeBluetoothAddress } from "./bluetooth_address.ts";
import { decodePvvx } from "./pvvx.ts";
import type { Advertisement } from "./scanner.ts";
import type { Decoded, Decoder } from "./sensor_reading.ts";

/** The advertisement formats read. */
export const BLE_SENSOR_KINDS = ["beewi", "pvvx", "atc1441", "bthome"] as const;

/** One of {@linkcode BLE_SENSOR_KINDS}. */
export type BleSensorKind = typeof BLE_SENSOR_KINDS[number];

/** One configured thermometer. */
export interface BleSensor {
  /** Its name: the `sensor` tag and the last part of its MQTT topic. */
  readonly name: string;
  /** Its advertisement format. */
  readonly kind: BleSensorKind;
  /** Its address as 12 lower-case hex digits. */
  readonly address: string;
}

/** Where a kind's payload is: manufacturer data, or the service data of a UUID. */
const SOURCES: Readonly<
  Record<BleSensorKind, { serviceUuid?: string; decode: Decoder }>
> = {
  beewi: {
    decode: (data) => {
      const reading = decodeBeeWi(data);
      return reading
        ? { reading }
        : { problem: `${data.length} bytes of manufacturer data: expected 13` };
    },
  },
  pvvx: { serviceUuid: "181a", decode: decodePvvx },
  atc1441: { serviceUuid: "181a", decode: decodeAtc1441 },
  bthome: { serviceUuid: "fcd2", decode: decodeBtHome },
};

/**
 * Decodes `advertisement` as a frame of `kind`: `undefined` when it carries no payload
 * of that kind (a scan response, another service), else the reading or the problem.
 * Never throws.
 *
 * @example
 * ```ts
 * // A BTHome v2 frame holding a temperature of 22.5 °C (object 0x02, 2250 × 0.01).
 * const data = Uint8Array.of(0x40, 0x02, 0xca, 0x08);
 * decodeAdvertisement("bthome", {
 *   address: "A4:C1:38:00:11:22",
 *   serviceData: [{ uuid: "fcd2", data }],
 * });
 * // { reading: { temperature: 22.5 } }
 * ```
 */
export function decodeAdvertisement(
  kind: BleSensorKind,
  advertisement: Advertisement,
): Decoded | undefined {
  const source = SOURCES[kind];
  let data: Uint8Array | undefined;
  if (source.serviceUuid === undefined) data = advertisement.manufacturerData;
  else {
    data = advertisement.serviceData?.find((entry) =>
      shortUuid(entry.uuid) === source.serviceUuid
    )?.data;
  }
  if (data === undefined) return undefined;
  try {
    return source.decode(data);
  } catch (error) {
    return { problem: `undecodable frame: ${String(error)}` };
  }
}

/** `181a` for `181A`, `0x181a` or `0000181a-0000-1000-8000-00805f9b34fb`. */
function shortUuid(uuid: string): string {
  const value = uuid.toLowerCase().replace(/^0x/, "");
  const long = /^0000([0-9a-f]{4})-?0000-?1000-?8000-?00805f9b34fb$/.exec(
    value,
  );
  return long ? long[1]! : value;
}

/**
 * Parses `BLE_SENSORS`: `name=kind:address[,name=kind:address...]`. Throws one
 * error listing every malformed entry.
 *
 * @example
 * ```ts
 * parseBleSensors("kitchen=pvvx:A4:C1:38:00:11:22");
 * // [{ name: "kitchen", kind: "pvvx", address: "a4c138001122" }]
 * ```
 */
export function parseBleSensors(value: string): BleSensor[] {
  const sensors: BleSensor[] = [];
  const problems: string[] = [];
  const names = new Set<string>();
  for (const entry of value.split(",").map((part) => part.trim())) {
    if (entry === "") continue;
    const match = /^([A-Za-z0-9_-]+)=([a-z0-9]+):(.+)$/.exec(entry);
    if (!match) {
      problems.push(
        `"${entry}" is not name=kind:address (name of letters, digits, _ and -)`,
      );
      continue;
    }
    const [, name, kind, rawAddress] = match as unknown as [
      string,
      string,
      string,
      string,
    ];
    const address = normalizeBluetoothAddress(rawAddress);
    if (!(BLE_SENSOR_KINDS as readonly string[]).includes(kind)) {
      problems.push(
        `"${entry}": unknown kind "${kind}" (expected ${
          BLE_SENSOR_KINDS.join(", ")
        })`,
      );
    } else if (address === undefined) {
      problems.push(
        `"${entry}": "${rawAddress}" is not a Bluetooth address such as AA:BB:CC:DD:EE:FF`,
      );
    } else if (names.has(name)) {
      problems.push(`"${entry}": the name "${name}" is used twice`);
    } else {
      names.add(name);
      sensors.push({ name, kind: kind as BleSensorKind, address });
    }
  }
  if (problems.length > 0) throw new Error(problems.join("; "));
  if (sensors.length === 0) {
    throw new Error("expected name=kind:address[,name=kind:address...]");
  }
  return sensors;
}
