/**
 * Pressure on a real Linux kernel (tests/_test_qemu_guest.ts): the kernel's `i2c-stub`
 * emulates a BMP280 at 0x77 (the datasheet's worked example) and an LPS25H at 0x5c on
 * `/dev/i2c-0`. `main.ts collector --once` reads them with homewire's own drivers
 * (`PRESSURE_SENSOR=i2c:...`, SMBus transfers through the `/dev/i2c-0` ioctls), then
 * through the kernel's own bmp280 and st_pressure drivers (`PRESSURE_SENSOR=iio`), and
 * writes to a store on the guest's loopback. The failures a user meets (a chip with the
 * wrong id, no such bus, no chip at the address) give their documented error line and
 * exit status 1 and write nothing.
 *
 * One boot; skipped with a printed reason when qemu-system or the kernel is missing,
 * failing under CI=true.
 */
import assert from "node:assert/strict";
import {
  BMP280_KPA,
  bmp280Registers,
  setRegisters,
} from "./_test_guest_chips.ts";
import {
  checkGuestRun,
  guestPrelude,
  guestResult,
  storedLines,
} from "./_test_guest_script.ts";
import { guestAvailability, runGuest } from "./_test_qemu_guest.ts";

const available = guestAvailability("kernel pressure suite", {
  tools: ["i2cset", "i2cget"],
});

/** LPS25H raw pressure: 1013.6499 hPa at 4096 counts per hPa. */
const LPS25H_RAW = 0x3f5a66;
const LPS25H_HPA = LPS25H_RAW / 4096;
const ALTITUDE_M = 650;

/**
 * The LPS25H as its drivers see it on a memory-only stub: the kernel's st_sensors
 * reads every register with the multi-read bit (0x80) set, so WHO_AM_I and CTRL_REG1
 * are mirrored there; CTRL_REG1 says powered on at 1 Hz (continuous, as the Sense HAT
 * library leaves it), so homewire's driver reads the latest sample without a one-shot
 * conversion, which a memory stub cannot perform.
 */
function lps25hRegisters(address: number): string {
  const pressure = [
    LPS25H_RAW & 0xff,
    (LPS25H_RAW >> 8) & 0xff,
    LPS25H_RAW >> 16,
  ];
  return [
    setRegisters(address, 0x0f, [0xbd]),
    setRegisters(address, 0x8f, [0xbd]),
    setRegisters(address, 0x20, [0x90]),
    setRegisters(address, 0xa0, [0x90]),
    setRegisters(address, 0xa8, pressure),
    setRegisters(address, 0xab, [0x00, 0x00]),
  ].join("\n");
}

function script(): string {
  const store = "TSDB_HOST=127.0.0.1 TSDB_PORT=8086";
  return `${guestPrelude(available.kernel!)}
step store
start_store
step modules
kmod i2c-stub chip_addr=0x77,0x5c,0x76
kmod i2c-dev
kmod bmp280-i2c
kmod st_pressure_i2c
step registers
${bmp280Registers(0x77)}
${lps25hRegisters(0x5c)}
${setRegisters(0x76, 0xd0, [0x55])}
step wait-store
wait_store || exit 1
# Two or three collectors at a time: each spends most of its time starting.
step homewire-drivers
spawn homewire i2c-bmp280 ${store} TSDB_DATABASE=i2c_bmp280 PRESSURE_SENSOR=i2c:bmp280:0:0x77 PRESSURE_ALTITUDE_M=${ALTITUDE_M} -- collector --once
spawn homewire i2c-lps25h ${store} TSDB_DATABASE=i2c_lps25h PRESSURE_SENSOR=i2c:lps25h:0:0x5c -- collector --once
wait_batch
step failures
spawn homewire wrong-id ${store} TSDB_DATABASE=wrong_id PRESSURE_SENSOR=i2c:bmp280:0:0x76 -- collector --once
spawn homewire no-bus ${store} TSDB_DATABASE=no_bus PRESSURE_SENSOR=i2c:bmp280:7:0x77 -- collector --once
spawn homewire no-chip ${store} TSDB_DATABASE=no_chip PRESSURE_SENSOR=i2c:lps25h:0:0x5d -- collector --once
wait_batch
step kernel-drivers
echo bmp280 0x77 >/sys/bus/i2c/devices/i2c-0/new_device
echo lps25h 0x5c >/sys/bus/i2c/devices/i2c-0/new_device
for device in /sys/bus/iio/devices/iio:device*; do
  echo "@@iio $(cat "$device/name") $(cat "$device/in_pressure_input" 2>/dev/null || echo "raw $(cat "$device/in_pressure_raw") scale $(cat "$device/in_pressure_scale")")"
done
step iio
spawn homewire iio-bmp280 ${store} TSDB_DATABASE=iio_bmp280 PRESSURE_SENSOR=iio PRESSURE_IIO_DEVICE=bmp280 -- collector --once
spawn homewire iio-lps25h ${store} TSDB_DATABASE=iio_lps25h PRESSURE_SENSOR=iio PRESSURE_IIO_DEVICE=lps25h -- collector --once
wait_batch
step done
`;
}

/** The `home_pressure` fields of the lines the store received for `database`. */
async function pressureFields(jobDir: string, database: string) {
  const lines = await storedLines(jobDir, database);
  const pressure = lines.filter((line) =>
    line.startsWith("home_pressure,location=in ")
  );
  assert.equal(pressure.length, 1, `${database}: ${lines.join("\n")}`);
  const fields = Object.fromEntries(
    pressure[0]!.split(" ")[1]!.split(",").map((field) => {
      const [key, value] = field.split("=");
      return [key!, Number(value)];
    }),
  );
  return { fields, lines };
}

Deno.test({
  name: "the collector reads pressure chips through the kernel's I2C and IIO",
  ignore: available.ignore,
  async fn(t) {
    assert.deepEqual(available.missing, [], "the kernel suites need these");
    const run = await runGuest({
      kernel: available.kernel!,
      script: script(),
      timeoutMs: 480_000,
    });
    console.log(
      `kernel pressure suite: guest ran ${run.wallMs} ms (${
        run.lines.filter((line) => line.startsWith("@@ran")).join("; ")
      })`,
    );
    const { console: console_, job, step, finish } = checkGuestRun(t, run);
    const result = (name: string) => guestResult(job, name);
    const expectExit = async (name: string, status: number) => {
      const { status: actual, output } = await result(name);
      assert.equal(actual, status, output);
      return output;
    };

    let kernelBmp280 = NaN;
    let kernelLps25h = NaN;
    await step("the kernel's drivers bind to the emulated chips", () => {
      const iio = run.lines.filter((line) => line.startsWith("@@iio "));
      const bmp = iio.find((line) => line.startsWith("@@iio bmp280 "));
      const lps = iio.find((line) => line.startsWith("@@iio lps25h"));
      assert.ok(bmp && lps, console_);
      kernelBmp280 = Number(bmp.split(" ")[2]) * 10;
      assert.equal(kernelBmp280, BMP280_KPA * 10);
      const [, , , raw, , scale] = lps.split(" ");
      assert.equal(Number(raw), LPS25H_RAW, lps);
      kernelLps25h = Number(raw) * Number(scale) * 10;
      assert.ok(Math.abs(kernelLps25h - LPS25H_HPA) < 0.01, lps);
    });

    await step(
      "PRESSURE_SENSOR=iio reads the kernel's bmp280 driver",
      async () => {
        await expectExit("iio-bmp280", 0);
        const { fields } = await pressureFields(job, "iio_bmp280");
        assert.equal(fields.value!.toFixed(2), "1006.53");
      },
    );

    await step(
      "PRESSURE_SENSOR=iio reads the kernel's st_pressure driver (LPS25H)",
      async () => {
        await expectExit("iio-lps25h", 0);
        const { fields } = await pressureFields(job, "iio_lps25h");
        assert.ok(
          Math.abs(fields.value! - kernelLps25h) < 0.01,
          `${fields.value}`,
        );
      },
    );

    await step(
      "homewire's BMP280 driver agrees with the kernel's within 0.1 hPa, with sea_level",
      async () => {
        await expectExit("i2c-bmp280", 0);
        const { fields } = await pressureFields(job, "i2c_bmp280");
        assert.ok(
          Math.abs(fields.value! - kernelBmp280) < 0.1,
          `${fields.value} vs ${kernelBmp280}`,
        );
        const seaLevel = fields.value! / (1 - ALTITUDE_M / 44330) ** 5.255;
        assert.ok(
          Math.abs(fields.sea_level! - seaLevel) < 1e-6,
          `${fields.sea_level}`,
        );
      },
    );

    await step(
      "homewire's LPS25H driver agrees with the kernel's within 0.1 hPa",
      async () => {
        await expectExit("i2c-lps25h", 0);
        const { fields } = await pressureFields(job, "i2c_lps25h");
        assert.ok(
          Math.abs(fields.value! - kernelLps25h) < 0.1,
          `${fields.value} vs ${kernelLps25h}`,
        );
        assert.equal(fields.sea_level, undefined);
      },
    );

    const failures: [string, string, RegExp][] = [
      [
        "wrong-id",
        "wrong_id",
        /\[ERROR\] .*Indoor step: no pressure reading: No BMP280 found: chip id is 0x55, expected 0x58/,
      ],
      [
        "no-bus",
        "no_bus",
        /\[ERROR\] .*Indoor step: no pressure reading: I2C bus device "\/dev\/i2c-7" not found: enable I2C \(raspi-config, or dtparam=i2c_arm=on\) and check the bus number/,
      ],
      [
        "no-chip",
        "no_chip",
        /\[ERROR\] .*Indoor step: no pressure reading: Cannot read register 0x0f of I2C chip 0x5d on "\/dev\/i2c-0": .+ \(errno \d+\)/,
      ],
    ];
    for (const [name, database, line] of failures) {
      await step(
        `${name}: the documented error line, exit status 1, nothing written`,
        async () => {
          const output = await expectExit(name, 1);
          assert.match(output, line);
          assert.match(output, /The pass collected no point: nothing to write/);
          assert.deepEqual(await storedLines(job, database), []);
        },
      );
    }
    await finish();
  },
});
