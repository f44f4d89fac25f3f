/**
 * Direct access to `/dev/i2c-N` through libc, for chips without a kernel IIO driver.
 *
 * `npm:i2c-bus` cannot load in Deno (a legacy nan addon), so the few system calls it
 * makes are called here through `Deno.dlopen`: `open`, `ioctl(I2C_SLAVE)`, `write`,
 * `read` and `close`.
 *
 * @module
 */
import { hex, type I2cDevice } from "./i2c_device.ts";

/** `ioctl` request selecting the chip address for later reads and writes (linux/i2c-dev.h). */
const I2C_SLAVE = 0x0703;
const O_RDWR = 0x02;

const LIBC_SYMBOLS = {
  open: { parameters: ["buffer", "i32"], result: "i32" },
  ioctl: { parameters: ["i32", "usize", "usize"], result: "i32" },
  read: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  write: { parameters: ["i32", "buffer", "usize"], result: "isize" },
  close: { parameters: ["i32"], result: "i32" },
  strerror: { parameters: ["i32"], result: "pointer" },
  __errno_location: { parameters: [], result: "pointer" },
} as const;

type Libc = Deno.DynamicLibrary<typeof LIBC_SYMBOLS>["symbols"];

/** An open I2C device; `close()` releases the file and the library. */
export interface OpenI2cDevice extends I2cDevice {
  /** Closes the device file. */
  close(): void;
}

/**
 * Opens the chip at `address` on bus `bus` (`/dev/i2c-<bus>`).
 *
 * @throws with a message naming the device file when the bus does not exist, cannot be
 *   opened, or the address cannot be selected
 * @example
 * ```ts
 * const device = openI2cDevice(1, 0x5c);
 * try {
 *   device.readRegisters(0x0f, 1); // WHO_AM_I
 * } finally {
 *   device.close();
 * }
 * ```
 */
export function openI2cDevice(
  bus: number,
  address: number,
  devicePath = `/dev/i2c-${bus}`,
): OpenI2cDevice {
  try {
    Deno.statSync(devicePath);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new Error(
        `I2C bus device "${devicePath}" not found: enable I2C (raspi-config, or dtparam=i2c_arm=on) and check the bus number`,
      );
    }
    throw error;
  }
  const library = openLibc();
  const libc = library.symbols;
  let fd = -1;
  const fail = (what: string): never => {
    const reason = systemError(libc);
    if (fd >= 0) libc.close(fd);
    library.close();
    throw new Error(`Cannot ${what} "${devicePath}": ${reason}`);
  };
  fd = libc.open(cString(devicePath), O_RDWR);
  if (fd < 0) fail("open I2C bus device");
  if (libc.ioctl(fd, BigInt(I2C_SLAVE), BigInt(address)) < 0) {
    fail(`select I2C address ${hex(address)} on`);
  }
  const transfer = (
    call: "read" | "write",
    buffer: Uint8Array<ArrayBuffer>,
  ) => {
    const done = Number(libc[call](fd, buffer, BigInt(buffer.length)));
    if (done !== buffer.length) {
      const reason = done < 0
        ? systemError(libc)
        : `${done} of ${buffer.length} bytes`;
      throw new Error(
        `Cannot ${call} I2C chip ${hex(address)} on "${devicePath}": ${reason}`,
      );
    }
  };
  let open = true;
  return {
    readRegisters(register, length) {
      transfer("write", new Uint8Array([register]));
      const data = new Uint8Array(length);
      transfer("read", data);
      return data;
    },
    writeRegister(register, value) {
      transfer("write", new Uint8Array([register, value]));
    },
    close() {
      if (!open) return;
      open = false;
      libc.close(fd);
      library.close();
    },
  };
}

function openLibc(): Deno.DynamicLibrary<typeof LIBC_SYMBOLS> {
  let firstError: unknown;
  for (const name of ["libc.so.6", "libc.so"]) {
    try {
      return Deno.dlopen(name, LIBC_SYMBOLS);
    } catch (error) {
      firstError ??= error;
    }
  }
  throw new Error("Cannot load libc for direct I2C access", {
    cause: firstError,
  });
}

function cString(text: string): Uint8Array<ArrayBuffer> {
  return new TextEncoder().encode(`${text}\0`);
}

/** The text of the current `errno`, read right after the failing call. */
function systemError(libc: Libc): string {
  const where = libc.__errno_location();
  const code = where ? new Deno.UnsafePointerView(where).getInt32() : 0;
  const text = libc.strerror(code);
  const message = text ? new Deno.UnsafePointerView(text).getCString() : "";
  return `${message || "unknown error"} (errno ${code})`;
}
