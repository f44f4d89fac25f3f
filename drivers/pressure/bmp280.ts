/**
 * Driver for the Bosch BMP280 pressure sensor (also reads the BME280's pressure, whose
 * registers and formulas are the same).
 *
 * @module
 */
import {
  BMP280_CALIBRATION_LENGTH,
  bmp280PressurePa,
  bmp280Temperature,
  parseBmp280Calibration,
  parseBmp280Data,
} from "./bmp280_compensation.ts";
import { pollUntil } from "./_poll_until.ts";
import { hex, type I2cPressureChip } from "./i2c_device.ts";

const CHIP_ID = 0xd0;
/** 0x56 and 0x57 are BMP280 samples, 0x58 the production BMP280, 0x60 the BME280. */
const KNOWN_IDS = [0x56, 0x57, 0x58, 0x60];
const CALIBRATION = 0x88;
const STATUS = 0xf3;
const MEASURING = 0x08;
const CTRL_MEAS = 0xf4;
const MODE_MASK = 0x03;
const MODE_NORMAL = 0x03;
/** Temperature oversampling x1, pressure x4, forced mode (one measurement). */
const FORCED_MEASUREMENT = (0b001 << 5) | (0b011 << 2) | 0b01;
const DATA = 0xf7;

/** The BMP280 driver (I2C address 0x76, or 0x77 with SDO high). */
export const bmp280: I2cPressureChip = {
  name: "bmp280",
  addresses: [0x76, 0x77],
  async readPressure(device, wait) {
    const id = device.readRegisters(CHIP_ID, 1)[0] ?? 0;
    if (!KNOWN_IDS.includes(id)) {
      throw new Error(
        `No BMP280 found: chip id is ${hex(id)}, expected ${hex(0x58)}`,
      );
    }
    const calibration = parseBmp280Calibration(
      device.readRegisters(CALIBRATION, BMP280_CALIBRATION_LENGTH),
    );
    const mode = (device.readRegisters(CTRL_MEAS, 1)[0] ?? 0) & MODE_MASK;
    // In normal mode another program drives the chip: read its latest sample as it is.
    if (mode !== MODE_NORMAL) {
      device.writeRegister(CTRL_MEAS, FORCED_MEASUREMENT);
      // A forced measurement with these oversampling settings takes about 14 ms.
      await wait(10);
      await pollUntil(
        () => ((device.readRegisters(STATUS, 1)[0] ?? 0) & MEASURING) === 0,
        wait,
        {
          intervalMs: 5,
          attempts: 20,
          failure: "BMP280 measurement did not finish within 110 ms",
        },
      );
    }
    const { adcP, adcT } = parseBmp280Data(device.readRegisters(DATA, 6));
    const { tFine } = bmp280Temperature(adcT, calibration);
    return bmp280PressurePa(adcP, tFine, calibration) / 100;
  },
};
