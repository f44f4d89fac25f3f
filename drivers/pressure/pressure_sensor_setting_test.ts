import assert from "node:assert/strict";
import { parseSettings, SettingsError } from "../../lib/settings.ts";
import {
  parsePressureSensor,
  pressureSensorSetting,
} from "./pressure_sensor_setting.ts";

Deno.test("parsePressureSensor()", async (t) => {
  await t.step("reads iio and none in any case", () => {
    assert.deepEqual(parsePressureSensor("iio"), { kind: "iio" });
    assert.deepEqual(parsePressureSensor("NONE"), { kind: "none" });
  });
  await t.step("reads chip, bus and hex or decimal address", () => {
    assert.deepEqual(parsePressureSensor("i2c:lps25h:1:0x5c"), {
      kind: "i2c",
      chip: "lps25h",
      bus: 1,
      address: 0x5c,
    });
    assert.deepEqual(parsePressureSensor("i2c:bmp280:3:119"), {
      kind: "i2c",
      chip: "bmp280",
      bus: 3,
      address: 0x77,
    });
  });
  await t.step(
    "defaults the bus to 1 and the address to the chip's usual one",
    () => {
      assert.deepEqual(parsePressureSensor("i2c:bmp280"), {
        kind: "i2c",
        chip: "bmp280",
        bus: 1,
        address: 0x76,
      });
      assert.deepEqual(parsePressureSensor("i2c:lps25h:0"), {
        kind: "i2c",
        chip: "lps25h",
        bus: 0,
        address: 0x5c,
      });
    },
  );
  await t.step("explains each malformed value", () => {
    assert.throws(
      () => parsePressureSensor("spi"),
      /expected iio, none or i2c:<chip>:<bus>:<address> with chip lps25h or bmp280/,
    );
    assert.throws(
      () => parsePressureSensor("i2c:lps25h:1:0x5c:9"),
      /expected iio, none or i2c/,
    );
    assert.throws(
      () => parsePressureSensor("i2c:bme680:1:0x76"),
      /unknown I2C pressure chip "bme680": expected lps25h or bmp280/,
    );
    assert.throws(
      () => parsePressureSensor("i2c:lps25h:x:0x5c"),
      /invalid I2C bus "x": expected the N of \/dev\/i2c-N/,
    );
    assert.throws(
      () => parsePressureSensor("i2c:bmp280:1:0x5c"),
      /invalid I2C address "0x5c" for bmp280: expected 0x76 or 0x77/,
    );
    assert.throws(
      () => parsePressureSensor("i2c:lps25h:1:zz"),
      /invalid I2C address "zz" for lps25h: expected 0x5c or 0x5d/,
    );
  });
});

Deno.test("pressureSensorSetting() defaults to iio and reports the variable at parse time", () => {
  const schema = { PRESSURE_SENSOR: pressureSensorSetting() };
  assert.deepEqual(parseSettings(schema, {}).PRESSURE_SENSOR, { kind: "iio" });
  assert.equal(schema.PRESSURE_SENSOR.defaultText, "iio");
  assert.throws(
    () => parseSettings(schema, { PRESSURE_SENSOR: "i2c:foo" }),
    (error: unknown) =>
      error instanceof SettingsError &&
      error.problems[0] ===
        'Invalid PRESSURE_SENSOR "i2c:foo": unknown I2C pressure chip "foo": expected lps25h or bmp280',
  );
});
