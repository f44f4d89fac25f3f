/**
 * The pressure settings and sources as a user meets them: through `main.ts` and the
 * collector's indoor step (`collector --once`). Readings written to a real store are
 * covered by collector_main_test.ts.
 */
import assert from "node:assert/strict";
import { freePort, startMain } from "./_test_helpers.ts";

/** A store address nobody listens on: these passes have no point to write. */
const STORE = () => ({ TSDB_HOST: "127.0.0.1", TSDB_PORT: String(freePort()) });

Deno.test("a malformed PRESSURE_SENSOR stops start-up with exit code 2 and one clear line", async () => {
  const collector = startMain(["collector", "--once"], {
    env: { ...STORE(), PRESSURE_SENSOR: "i2c:bmp280:1:0x5c" },
  });
  assert.equal(await collector.exited(), 2);
  assert.ok(
    collector.stderr.includes(
      'collector: Invalid PRESSURE_SENSOR "i2c:bmp280:1:0x5c": invalid I2C address "0x5c" for bmp280: expected 0x76 or 0x77',
    ),
    collector.stderr.join("\n"),
  );
});

Deno.test("an I2C bus that does not exist is named in the indoor step's ERROR", async () => {
  const collector = startMain(["collector", "--once"], {
    env: { ...STORE(), PRESSURE_SENSOR: "i2c:lps25h:97" },
  });
  await collector.exited();
  assert.ok(
    collector.stderr.some((line) =>
      line.includes("[ERROR]") &&
      line.includes(
        'I2C bus device "/dev/i2c-97" not found: enable I2C (raspi-config, or dtparam=i2c_arm=on) and check the bus number',
      )
    ),
    collector.stderr.join("\n"),
  );
});

Deno.test("an IIO tree without a pressure channel is reported clearly", async () => {
  const root = await Deno.makeTempDir({ prefix: "homewire-iio-" });
  try {
    await Deno.mkdir(`${root}/iio:device0`);
    await Deno.writeTextFile(`${root}/iio:device0/name`, "lsm9ds1_magn\n");
    await Deno.writeTextFile(`${root}/iio:device0/in_magn_x_raw`, "12\n");
    const collector = startMain(["collector", "--once"], {
      env: { ...STORE(), PRESSURE_IIO_ROOT: root },
    });
    await collector.exited();
    assert.ok(
      collector.stderr.some((line) =>
        line.includes("[ERROR]") &&
        line.includes(
          `No IIO pressure device under "${root}" (found iio:device0 (lsm9ds1_magn))`,
        )
      ),
      collector.stderr.join("\n"),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
