/**
 * The I2C pressure chips `PRESSURE_SENSOR=i2c:<chip>:...` can name. A new chip is one
 * driver file implementing {@linkcode I2cPressureChip} and one line here.
 *
 * @module
 */
import { bmp280 } from "./bmp280.ts";
import type { I2cPressureChip } from "./i2c_device.ts";
import { lps25h } from "./lps25h.ts";

/** Every supported chip, by name. */
export const I2C_PRESSURE_CHIPS: Readonly<Record<string, I2cPressureChip>> = {
  [lps25h.name]: lps25h,
  [bmp280.name]: bmp280,
};
