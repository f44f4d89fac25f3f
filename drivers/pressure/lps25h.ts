/**
 * Driver for the ST LPS25H pressure sensor (the Raspberry Pi Sense HAT's barometer).
 *
 * @module
 */
import { pollUntil } from "./_poll_until.ts";
import { hex, type I2cDevice, type I2cPressureChip } from "./i2c_device.ts";

const WHO_AM_I = 0x0f;
const LPS25H_ID = 0xbd;
const CTRL_REG1 = 0x20;
const CTRL_REG2 = 0x21;
const PRESS_OUT_XL = 0x28;
/** Set on a register address to read several registers in one transfer. */
const AUTO_INCREMENT = 0x80;
const POWER_ON = 0x80;
const BLOCK_DATA_UPDATE = 0x04;
const ODR_MASK = 0x70;
const ONE_SHOT = 0x01;

/**
 * Converts the three pressure output bytes (PRESS_OUT_XL, _L, _H) to hPa: a 24-bit
 * two's-complement value in units of 1/4096 hPa (LPS25H datasheet, section 4).
 *
 * @example
 * ```ts
 * lps25hPressureHpa(Uint8Array.of(0x00, 0x80, 0x3f)); // 1016
 * ```
 */
export function lps25hPressureHpa(bytes: Uint8Array): number {
  if (bytes.length < 3) {
    throw new Error(`Short LPS25H pressure reading: ${bytes.length} bytes`);
  }
  const raw = bytes[0]! | (bytes[1]! << 8) | (bytes[2]! << 16);
  const signed = raw & 0x800000 ? raw - 0x1000000 : raw;
  return signed / 4096;
}

/** The LPS25H driver (I2C address 0x5c, or 0x5d with SA0 high). */
export const lps25h: I2cPressureChip = {
  name: "lps25h",
  addresses: [0x5c, 0x5d],
  async readPressure(device: I2cDevice, wait) {
    const id = device.readRegisters(WHO_AM_I, 1)[0];
    if (id !== LPS25H_ID) {
      throw new Error(
        `No LPS25H found: WHO_AM_I is ${hex(id ?? 0)}, expected ${
          hex(LPS25H_ID)
        }`,
      );
    }
    const ctrl1 = device.readRegisters(CTRL_REG1, 1)[0] ?? 0;
    // Another program (the Sense HAT library) may run the chip continuously: then the
    // latest sample is read as it is, without reconfiguring the chip under its feet.
    const continuous = (ctrl1 & POWER_ON) !== 0 && (ctrl1 & ODR_MASK) !== 0;
    if (!continuous) {
      device.writeRegister(CTRL_REG1, POWER_ON | BLOCK_DATA_UPDATE);
      device.writeRegister(CTRL_REG2, ONE_SHOT);
      // A one-shot conversion takes up to about 40 ms at the default averaging.
      await pollUntil(
        () => ((device.readRegisters(CTRL_REG2, 1)[0] ?? 0) & ONE_SHOT) === 0,
        wait,
        {
          intervalMs: 10,
          attempts: 20,
          failure: "LPS25H one-shot measurement did not finish within 200 ms",
        },
      );
    }
    return lps25hPressureHpa(
      device.readRegisters(PRESS_OUT_XL | AUTO_INCREMENT, 3),
    );
  },
};
