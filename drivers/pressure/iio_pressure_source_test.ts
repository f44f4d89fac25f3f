import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createIioPressureSource } from "./iio_pressure_source.ts";

/** Builds a fake `/sys/bus/iio/devices` tree: folder name -> files. */
async function fakeIioTree(
  devices: Record<string, Record<string, string>>,
): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "homewire-iio-" });
  for (const [folder, files] of Object.entries(devices)) {
    await Deno.mkdir(`${root}/${folder}`);
    for (const [name, content] of Object.entries(files)) {
      await Deno.writeTextFile(`${root}/${folder}/${name}`, content);
    }
  }
  return root;
}

const ACCELEROMETER = { name: "lsm9ds1_accel\n", in_accel_x_raw: "12\n" };
const BMP280 = { name: "bmp280\n", in_pressure_input: "100.653270\n" };
// The kernel's st_pressure driver (LPS25H) exposes raw counts and a kPa scale.
const LPS25H = {
  name: "lps25h\n",
  in_pressure_raw: "4149248\n",
  in_pressure_scale: "0.000024414\n",
};

Deno.test("createIioPressureSource()", async (t) => {
  const root = await fakeIioTree({
    "iio:device0": ACCELEROMETER,
    "iio:device1": BMP280,
    "iio:device2": LPS25H,
    "trigger0": { name: "trigger\n" },
  });
  try {
    await t.step(
      "reads the first device with a pressure channel, kPa to hPa",
      async () => {
        const log = createMemoryLog();
        const source = createIioPressureSource({ root, log });
        assert.ok(Math.abs(await source.read() - 1006.5327) < 1e-9);
        await source.read();
        assert.deepEqual(log.at("INFO"), [
          "Pressure from IIO device iio:device1 (bmp280)",
        ]);
      },
    );
    await t.step(
      "PRESSURE_IIO_DEVICE picks a device by folder or driver name",
      async () => {
        const log = createMemoryLog();
        for (const device of ["iio:device2", "lps25h"]) {
          const hpa = await createIioPressureSource({ root, device, log })
            .read();
          assert.ok(Math.abs(hpa - 4149248 * 0.000024414 * 10) < 1e-9);
          assert.ok(Math.abs(hpa - 1013) < 0.01, `${hpa}`);
        }
      },
    );
    await t.step(
      "PRESSURE_IIO_DEVICE takes a full path to a device folder, as ls prints it",
      async () => {
        const log = createMemoryLog();
        for (const device of [`${root}/iio:device2`, `${root}/iio:device2/`]) {
          // The root is ignored for a full path.
          const hpa = await createIioPressureSource({
            root: `${root}/elsewhere`,
            device,
            log,
          }).read();
          assert.ok(Math.abs(hpa - 4149248 * 0.000024414 * 10) < 1e-9);
        }
        assert.deepEqual(log.at("INFO"), [
          "Pressure from IIO device iio:device2 (lps25h)",
          "Pressure from IIO device iio:device2 (lps25h)",
        ]);
        await assert.rejects(
          createIioPressureSource({ root, device: `${root}/iio:device7`, log })
            .read(),
          {
            message:
              `IIO device folder "${root}/iio:device7" not found: expected a folder such as /sys/bus/iio/devices/iio:device0 (ls /sys/bus/iio/devices lists them)`,
          },
        );
        await assert.rejects(
          createIioPressureSource({ root, device: `${root}/iio:device0`, log })
            .read(),
          /IIO device ".*\/iio:device0" has no pressure channel/,
        );
      },
    );
    await t.step(
      "PRESSURE_IIO_DEVICE takes a folder name with a trailing slash, as shell completion writes it",
      async () => {
        const hpa = await createIioPressureSource({
          root,
          device: "iio:device2/",
          log: createMemoryLog(),
        }).read();
        assert.ok(Math.abs(hpa - 4149248 * 0.000024414 * 10) < 1e-9);
      },
    );
    await t.step(
      "names a chosen device that is missing or has no pressure channel",
      async () => {
        const log = createMemoryLog();
        await assert.rejects(
          createIioPressureSource({ root, device: "iio:device7", log }).read(),
          {
            message:
              `IIO device "iio:device7" not found under "${root}": found iio:device0 (lsm9ds1_accel), iio:device1 (bmp280), iio:device2 (lps25h)`,
          },
        );
        await assert.rejects(
          createIioPressureSource({ root, device: "iio:device0", log }).read(),
          /IIO device "iio:device0" has no pressure channel: expected in_pressure_input or in_pressure_raw/,
        );
      },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
  await t.step("applies in_pressure_offset and numbered channels", async () => {
    const tree = await fakeIioTree({
      "iio:device10": {
        in_pressure0_raw: "1000\n",
        in_pressure0_offset: "13\n",
        in_pressure0_scale: "0.1\n",
      },
    });
    try {
      const source = createIioPressureSource({
        root: tree,
        log: createMemoryLog(),
      });
      assert.ok(Math.abs(await source.read() - 1013) < 1e-9);
    } finally {
      await Deno.remove(tree, { recursive: true });
    }
  });
  await t.step(
    "says clearly when no device has a pressure channel",
    async () => {
      const tree = await fakeIioTree({ "iio:device0": ACCELEROMETER });
      try {
        const log = createMemoryLog();
        await assert.rejects(
          createIioPressureSource({ root: tree, log }).read(),
          {
            message:
              `No IIO pressure device under "${tree}" (found iio:device0 (lsm9ds1_accel)): load the chip's kernel driver, or set PRESSURE_SENSOR=i2c:<chip>:<bus>:<address> or none`,
          },
        );
        await assert.rejects(
          createIioPressureSource({ root: `${tree}/missing`, log }).read(),
          /No IIO pressure device under ".*\/missing" \(found no IIO devices\)/,
        );
      } finally {
        await Deno.remove(tree, { recursive: true });
      }
    },
  );
  await t.step("rejects a value that is not a number", async () => {
    const tree = await fakeIioTree({
      "iio:device0": { in_pressure_input: "busy\n" },
    });
    try {
      const log = createMemoryLog();
      await assert.rejects(
        createIioPressureSource({ root: tree, log }).read(),
        /Invalid IIO value "busy" in in_pressure_input/,
      );
    } finally {
      await Deno.remove(tree, { recursive: true });
    }
  });
});
