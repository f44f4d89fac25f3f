import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { parseSettings } from "../../lib/settings.ts";
import { createPressureSource, pressureSettings } from "./mod.ts";

const log = createMemoryLog();

Deno.test("createPressureSource() returns nothing for PRESSURE_SENSOR=none", () => {
  const settings = parseSettings(pressureSettings, { PRESSURE_SENSOR: "none" });
  assert.equal(createPressureSource(settings, { log }), undefined);
});

Deno.test("createPressureSource() reads IIO under PRESSURE_IIO_ROOT by default", async () => {
  const root = await Deno.makeTempDir({ prefix: "homewire-iio-" });
  try {
    await Deno.mkdir(`${root}/iio:device0`);
    await Deno.writeTextFile(`${root}/iio:device0/in_pressure_input`, "101.3");
    const settings = parseSettings(pressureSettings, {
      PRESSURE_IIO_ROOT: root,
    });
    assert.equal(settings.PRESSURE_IIO_DEVICE, undefined);
    const source = createPressureSource(settings, { log });
    assert.equal(await source?.read(), 1013);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("createPressureSource() reads the chosen I2C chip and reports a missing bus", async () => {
  const settings = parseSettings(pressureSettings, {
    PRESSURE_SENSOR: "i2c:lps25h:97:0x5d",
  });
  const source = createPressureSource(settings, { log });
  await assert.rejects(
    source!.read(),
    /I2C bus device "\/dev\/i2c-97" not found/,
  );
});

Deno.test("pressureSettings has the documented defaults", () => {
  const settings = parseSettings(pressureSettings, {});
  assert.deepEqual(settings.PRESSURE_SENSOR, { kind: "iio" });
  assert.equal(settings.PRESSURE_IIO_ROOT, "/sys/bus/iio/devices");
});
