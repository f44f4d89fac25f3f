/**
 * The `PRESSURE_SENSOR` setting: which pressure source the indoor step reads.
 *
 * @module
 */
import type { Setting } from "../../lib/settings.ts";
import { text } from "../../lib/setting_kinds.ts";
import { I2C_PRESSURE_CHIPS } from "./chips.ts";
import { hex } from "./i2c_device.ts";

/** A parsed `PRESSURE_SENSOR` value. */
export type PressureSensor =
  | { readonly kind: "iio" }
  | { readonly kind: "none" }
  | {
    readonly kind: "i2c";
    readonly chip: string;
    readonly bus: number;
    readonly address: number;
  };

const FORMAT = "iio, none or i2c:<chip>:<bus>:<address>";

/**
 * Parses `iio`, `none` or `i2c:<chip>[:<bus>[:<address>]]` (bus default 1, address
 * default the chip's usual one; address in hex `0x5c` or decimal).
 *
 * @throws an `Error` saying what was expected
 * @example
 * ```ts
 * parsePressureSensor("i2c:lps25h:1:0x5c");
 * // { kind: "i2c", chip: "lps25h", bus: 1, address: 0x5c }
 * ```
 */
export function parsePressureSensor(raw: string): PressureSensor {
  const value = raw.trim().toLowerCase();
  if (value === "iio" || value === "none") return { kind: value };
  const chips = Object.keys(I2C_PRESSURE_CHIPS);
  const [kind, chipName, busText = "1", addressText, ...rest] = value.split(
    ":",
  );
  if (kind !== "i2c" || rest.length > 0) {
    throw new Error(
      `expected ${FORMAT} with chip ${
        chips.join(" or ")
      } (for example i2c:lps25h:1:0x5c)`,
    );
  }
  const chip = I2C_PRESSURE_CHIPS[chipName ?? ""];
  if (!chip) {
    throw new Error(
      `unknown I2C pressure chip "${chipName ?? ""}": expected ${
        chips.join(" or ")
      }`,
    );
  }
  if (!/^\d{1,3}$/.test(busText) || Number(busText) > 255) {
    throw new Error(
      `invalid I2C bus "${busText}": expected the N of /dev/i2c-N (0 to 255)`,
    );
  }
  const addresses = chip.addresses.map(hex).join(" or ");
  const address = addressText === undefined
    ? chip.addresses[0]!
    : /^(0x[0-9a-f]{1,2}|\d{1,3})$/.test(addressText)
    ? Number(addressText)
    : NaN;
  if (!chip.addresses.includes(address)) {
    throw new Error(
      `invalid I2C address "${addressText}" for ${chip.name}: expected ${addresses}`,
    );
  }
  return { kind: "i2c", chip: chip.name, bus: Number(busText), address };
}

/**
 * Builds the `PRESSURE_SENSOR` setting (default `iio`).
 *
 * @example
 * ```ts
 * import { parseSettings } from "../../lib/settings.ts";
 *
 * const { PRESSURE_SENSOR } = parseSettings(
 *   { PRESSURE_SENSOR: pressureSensorSetting() },
 *   { PRESSURE_SENSOR: "i2c:bmp280:1:0x76" },
 * );
 * // { kind: "i2c", chip: "bmp280", bus: 1, address: 0x76 }
 * ```
 */
export function pressureSensorSetting(): Setting<PressureSensor> {
  const raw = text({
    description:
      `Pressure source: ${FORMAT} (chip lps25h at 0x5c or bmp280 at 0x76/0x77)`,
    default: "iio",
  });
  return { ...raw, read: (value) => parsePressureSensor(raw.read(value)) };
}
