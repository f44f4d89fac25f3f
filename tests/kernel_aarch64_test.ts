/**
 * The Raspberry Pi's architecture on a real Linux kernel: Debian's arm64 kernel under
 * `qemu-system-aarch64 -machine virt` (a Cortex-A72, a Pi 4's core) with TCG, an arm64
 * userland unpacked from Debian's packages, and the arm64 Deno that tests/aarch64_test.ts
 * runs under user-mode qemu (tests/_test_qemu_guest.ts). In one boot, the kernel's
 * `i2c-stub` emulates a BMP280 at 0x77 (the datasheet's worked example) bound to the
 * kernel's bmp280 driver, `btvirt` makes three LE controllers through `hci_vhci`, two of
 * which advertise a pvvx and a BTHome thermometer, and one `main.ts collector --once`
 * reads the pressure through IIO (`PRESSURE_SENSOR=iio`) and both thermometers through
 * noble's raw HCI socket (the npm addon's linux-arm64 build), and writes them to a
 * store on the guest's loopback.
 *
 * Emulation is slow: the boot and the pass's wall times are printed. Skipped with a
 * printed reason when qemu-system-aarch64, the arm64 kernel and userland or the arm64
 * Deno is missing (`bash scripts/install_deps.sh` lays them), failing under CI=true.
 */
import assert from "node:assert/strict";
import { BMP280_KPA, bmp280Registers } from "./_test_guest_chips.ts";
import {
  checkGuestRun,
  guestPrelude,
  guestResult,
} from "./_test_guest_script.ts";
import {
  BTMGMT_FUNCTIONS,
  storedPoints,
  THERMOMETERS,
} from "./_test_guest_thermometers.ts";
import { guestAvailability, runGuest } from "./_test_qemu_guest.ts";

const available = guestAvailability("kernel aarch64 suite", { arch: "arm64" });

const THERMOMETERS_READ = THERMOMETERS.filter((t) =>
  t.kind === "pvvx" || t.kind === "bthome"
);
const TIMEOUT_MS = 60_000;

/**
 * The guest's script. The collector starts as soon as its adapter is powered on and
 * the thermometers' addresses are known: Deno takes most of a minute to load it under
 * emulation, time in which the thermometers start advertising and the store starts.
 * `@@at STEP UPTIME` lines time the steps.
 */
function script(): string {
  const store = "TSDB_HOST=127.0.0.1 TSDB_PORT=8086";
  const sensors = THERMOMETERS_READ.map((t) =>
    `${t.name}=${t.kind}:$ADDRESS_${t.name}`
  ).join(",");
  const controllers = THERMOMETERS_READ.length + 1;
  return `${guestPrelude(available.kernel!)}
${BTMGMT_FUNCTIONS}
at() { echo "@@at $1 $(cut -d ' ' -f 1 /proc/uptime)"; }
echo "@@arch $(uname -m)"
at script
step store
start_store
step modules
kmod i2c-stub chip_addr=0x77
kmod i2c-dev
kmod bmp280-i2c
for module in hci_vhci algif_skcipher algif_hash cmac ecb; do kmod "$module"; done
step registers
${bmp280Registers(0x77)}
echo bmp280 0x77 >/sys/bus/i2c/devices/i2c-0/new_device
for device in /sys/bus/iio/devices/iio:device*; do
  echo "@@iio $(cat "$device/name") $(cat "$device/in_pressure_input")"
done
step btvirt
btvirt -L -l${controllers} >/tmp/btvirt.log 2>&1 &
for _ in $(seq 1 300); do [ "$(ls /sys/class/bluetooth | wc -l)" -ge ${controllers} ] && break; sleep 0.1; done
bt --index 0 power on
${
    THERMOMETERS_READ.map((t, i) =>
      `ADDRESS_${t.name}=$(addr ${i + 1})
echo "@@address ${t.name} $ADDRESS_${t.name}"`
    ).join("\n")
  }
at pass
step pass
spawn homewire pass ${store} TSDB_DATABASE=pass PRESSURE_SENSOR=iio PRESSURE_IIO_DEVICE=bmp280 NOBLE_HCI_DEVICE_ID=0 TEMPERATURE_TIMEOUT_MS=${TIMEOUT_MS} "BLE_SENSORS=${sensors}" -- collector --once
step advertise
${
    THERMOMETERS_READ.map((t, i) =>
      `bt --index ${i + 1} power on
bt --index ${i + 1} add-adv -c -d ${t.ad} 1`
    ).join("\n")
  }
at advertising
step wait-store
wait_store || exit 1
at store
step wait-pass
wait_batch
at done
sed "s/^/@@pass-log /" /tmp/job/pass.out | head -n 40
step done
`;
}

Deno.test({
  name:
    "on arm64, one collector pass reads the kernel's bmp280 driver and BLE thermometers",
  ignore: available.ignore,
  async fn(t) {
    assert.deepEqual(available.missing, [], "the kernel suites need these");
    const run = await runGuest({
      kernel: available.kernel!,
      script: script(),
      timeoutMs: 420_000,
    });
    // The guest's uptime (s) at each step: boot to the script, the collector's start...
    const at = run.lines.filter((line) => line.startsWith("@@at "))
      .map((line) => line.slice("@@at ".length).replace(" ", " at "));
    console.log(
      `kernel aarch64 suite: guest ran ${run.wallMs} ms (uptime in s: ${
        at.join(", ")
      }; ${run.lines.filter((line) => line.startsWith("@@ran")).join("; ")})`,
    );
    const { console: console_, job, step, finish } = checkGuestRun(t, run);

    await step(
      "the guest is arm64 and the kernel's bmp280 driver binds",
      () => {
        assert.ok(
          run.lines.some((line) =>
            / aarch64 GNU\/Linux$|^@@arch aarch64$/.test(line)
          ),
          console_,
        );
        const iio = run.lines.find((line) => line.startsWith("@@iio bmp280 "));
        assert.equal(iio, `@@iio bmp280 ${BMP280_KPA}`, console_);
      },
    );

    const { status, output } = await guestResult(job, "pass");
    const points = await storedPoints(job, "pass");
    await step("the pass exits 0", () => assert.equal(status, 0, output));

    await step("PRESSURE_SENSOR=iio reads 1006.53 hPa", () => {
      const pressure = points.get("home_pressure -");
      assert.equal(pressure?.toFixed(2), "1006.53", output);
    });

    await step(
      "every thermometer's readings are written with its sensor tag",
      () => {
        for (const thermometer of THERMOMETERS_READ) {
          for (const [field, value] of Object.entries(thermometer.fields)) {
            assert.equal(
              points.get(`home_${field} ${thermometer.name}`),
              value,
              `${thermometer.name} ${field}: ${
                [...points].join("; ")
              }\n${output}`,
            );
          }
        }
      },
    );
    await finish();
  },
});
