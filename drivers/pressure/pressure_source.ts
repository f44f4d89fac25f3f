/**
 * What the collector's indoor step reads pressure through.
 *
 * @module
 */

/** A pressure sensor, whatever the chip or the way it is reached. */
export interface PressureSource {
  /** Takes one reading and returns the pressure in hPa. */
  read(): Promise<number>;
}
