import assert from "node:assert/strict";
import { openI2cDevice } from "./open_i2c_device.ts";

Deno.test("openI2cDevice() names the bus device file when it does not exist", () => {
  assert.throws(() => openI2cDevice(97, 0x5c), {
    message:
      'I2C bus device "/dev/i2c-97" not found: enable I2C (raspi-config, or dtparam=i2c_arm=on) and check the bus number',
  });
});

Deno.test("openI2cDevice() reports the system error of a file that is not an I2C bus", () => {
  // /dev/null opens, but the I2C_SLAVE ioctl fails on it: this runs the real libc calls.
  assert.throws(
    () => openI2cDevice(0, 0x5c, "/dev/null"),
    /^Error: Cannot select I2C address 0x5c on "\/dev\/null": .+ \(errno 25\)$/,
  );
});
