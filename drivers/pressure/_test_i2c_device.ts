/**
 * An in-memory chip for driver tests: a register file plus a log of the writes.
 *
 * @module
 */
import type { OpenI2cDevice } from "./open_i2c_device.ts";

/** A fake chip; `onWrite` lets a test simulate the chip reacting to a command. */
export interface FakeI2cDevice extends OpenI2cDevice {
  readonly registers: Map<number, number>;
  readonly writes: [number, number][];
  closed: boolean;
}

/** Builds a fake chip. `addressMask` strips flag bits such as auto-increment (0x80). */
export function createFakeI2cDevice(
  initial: Record<number, number>,
  options: {
    addressMask?: number;
    onWrite?: (registers: Map<number, number>, register: number) => void;
  } = {},
): FakeI2cDevice {
  const registers = new Map(
    Object.entries(initial).map(([k, v]) => [Number(k), v]),
  );
  const mask = options.addressMask ?? 0xff;
  const device: FakeI2cDevice = {
    registers,
    writes: [],
    closed: false,
    readRegisters(register, length) {
      const start = register & mask;
      return Uint8Array.from(
        { length },
        (_, i) => registers.get(start + i) ?? 0,
      );
    },
    writeRegister(register, value) {
      device.writes.push([register, value]);
      registers.set(register, value);
      options.onWrite?.(registers, register);
    },
    close() {
      device.closed = true;
    },
  };
  return device;
}
