/**
 * Direct access to `/dev/i2c-N` through libc, for chips without a kernel IIO driver.
 *
 * `npm:i2c-bus` cannot load in Deno (a legacy nan addon), so the few system calls it
 * makes are called here through `Deno.dlopen`: `open`, `ioctl(I2C_SLAVE)`,
 * `ioctl(I2C_SMBUS)` and `close`. Registers are read and written with SMBus transfers
 * (byte data, and I2C block data for several registers), as i2c-tools and
 * `npm:i2c-bus` do, not with plain `read()`/`write()` on the device file: every
 * adapter a chip like these sits on implements them (a Pi's BCM2835 controller
 * emulates them with I2C messages), while some adapters implement nothing else: the
 * kernel's `i2c-stub`, which the kernel suite reads through, and many SMBus host
 * controllers of PCs.
 *
 * @module
 */
import { hex, type I2cDevice } from "./i2c_device.ts";

/** `ioctl` request selecting the chip address for later transfers (linux/i2c-dev.h). */
const I2C_SLAVE = 0x0703;
/** `ioctl` request running one SMBus transfer (linux/i2c-dev.h). */
const I2C_SMBUS = 0x0720;
const I2C_SMBUS_READ = 1;
const I2C_SMBUS_WRITE = 0;
const I2C_SMBUS_BYTE_DATA = 2;
const I2C_SMBUS_I2C_BLOCK_DATA = 8;
/** The most bytes one SMBus block transfer carries. */
const I2C_SMBUS_BLOCK_MAX = 32;
const O_RDWR = 0x02;

const LIBC_SYMBOLS = {
  open: { parameters: ["buffer", "i32"], result: "i32" },
  ioctl: { parameters: ["i32", "usize", "usize"], result: "i32" },
  ioctlWithData: {
    name: "ioctl",
    parameters: ["i32", "usize", "buffer"],
    result: "i32",
  },
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
  // struct i2c_smbus_ioctl_data on a 64-bit system: u8 read_write, u8 command,
  // u32 size at 4, the pointer to union i2c_smbus_data at 8; the union is 34 bytes
  // (block[0] is the length, the data follows). Both live in one ArrayBuffer made as
  // such, whose memory V8 never moves (a small typed array made by length may live on
  // the moving heap), so the pointer written once stays valid.
  const memory = new ArrayBuffer(16 + I2C_SMBUS_BLOCK_MAX + 2);
  const request = new Uint8Array(memory, 0, 16);
  const data = new Uint8Array(memory, 16);
  const requestView = new DataView(memory, 0, 16);
  requestView.setBigUint64(
    8,
    BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(data))),
    true,
  );
  const smbus = (
    readWrite: number,
    register: number,
    size: number,
    what: string,
  ) => {
    request[0] = readWrite;
    request[1] = register;
    requestView.setUint32(4, size, true);
    if (libc.ioctlWithData(fd, BigInt(I2C_SMBUS), request) < 0) {
      throw new Error(
        `Cannot ${what} of I2C chip ${hex(address)} on "${devicePath}": ${
          systemError(libc)
        }`,
      );
    }
  };
  let open = true;
  return {
    readRegisters(register, length) {
      const result = new Uint8Array(length);
      for (let done = 0; done < length;) {
        const chunk = Math.min(length - done, I2C_SMBUS_BLOCK_MAX);
        const what = `read register ${hex(register + done)}`;
        if (chunk === 1) {
          smbus(I2C_SMBUS_READ, register + done, I2C_SMBUS_BYTE_DATA, what);
          result[done] = data[0]!;
        } else {
          data[0] = chunk;
          smbus(
            I2C_SMBUS_READ,
            register + done,
            I2C_SMBUS_I2C_BLOCK_DATA,
            what,
          );
          if (data[0] !== chunk) {
            throw new Error(
              `Cannot ${what} of I2C chip ${hex(address)} on "${devicePath}": ${
                data[0]
              } of ${chunk} bytes`,
            );
          }
          result.set(data.subarray(1, 1 + chunk), done);
        }
        done += chunk;
      }
      return result;
    },
    writeRegister(register, value) {
      data[0] = value;
      smbus(
        I2C_SMBUS_WRITE,
        register,
        I2C_SMBUS_BYTE_DATA,
        `write register ${hex(register)}`,
      );
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
