/**
 * The register-level view of one chip on an I2C bus that every chip driver uses.
 *
 * @module
 */

/** One chip on an I2C bus, addressed register by register. */
export interface I2cDevice {
  /** Reads `length` bytes starting at register `register`. */
  readRegisters(register: number, length: number): Uint8Array;
  /** Writes `value` to register `register`. */
  writeRegister(register: number, value: number): void;
}

/** A pressure chip driver: one file per chip, registered in `chips.ts`. */
export interface I2cPressureChip {
  /** Name used in `PRESSURE_SENSOR=i2c:<name>:<bus>:<address>`. */
  readonly name: string;
  /** Addresses the chip can respond on; the first is the default. */
  readonly addresses: readonly number[];
  /**
   * Takes one measurement and returns the pressure in hPa.
   *
   * @param device the chip, already selected on its bus
   * @param wait waits `ms` milliseconds (injected so drivers are tested without delays)
   */
  readPressure(
    device: I2cDevice,
    wait: (ms: number) => Promise<void>,
  ): Promise<number>;
}

/**
 * Formats an I2C address the way datasheets write it.
 *
 * @example
 * ```ts
 * hex(0x5c); // "0x5c"
 * ```
 */
export function hex(value: number): string {
  return `0x${value.toString(16).padStart(2, "0")}`;
}
