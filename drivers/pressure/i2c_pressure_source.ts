/**
 * Pressure read straight from a chip on `/dev/i2c-N`.
 *
 * @module
 */
import { sleep } from "../../lib/backoff.ts";
import type { I2cPressureChip } from "./i2c_device.ts";
import { type OpenI2cDevice, openI2cDevice } from "./open_i2c_device.ts";
import type { PressureSource } from "./pressure_source.ts";

/** Options of {@linkcode createI2cPressureSource}. */
export interface I2cPressureOptions {
  /** The chip's driver. */
  chip: I2cPressureChip;
  /** Bus number N of `/dev/i2c-N`. */
  bus: number;
  /** The chip's 7-bit address. */
  address: number;
  /** Opens the device (injected in tests). @default openI2cDevice */
  open?: (bus: number, address: number) => OpenI2cDevice;
  /** Waits between polls of the chip. @default sleep */
  wait?: (ms: number) => Promise<void>;
}

/**
 * Returns a source that opens the bus, takes one measurement and closes it again on
 * every read, so no file stays open between the collector's passes.
 *
 * @example
 * ```ts
 * import { lps25h } from "./lps25h.ts";
 *
 * const source = createI2cPressureSource({ chip: lps25h, bus: 1, address: 0x5c });
 * await source.read(); // 1013.2
 * ```
 */
export function createI2cPressureSource(
  options: I2cPressureOptions,
): PressureSource {
  const open = options.open ?? openI2cDevice;
  const wait = options.wait ?? ((ms: number) => sleep(ms));
  return {
    async read() {
      const device = open(options.bus, options.address);
      try {
        return await options.chip.readPressure(device, wait);
      } finally {
        device.close();
      }
    },
  };
}
