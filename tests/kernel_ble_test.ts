/**
 * BLE thermometers on a real Linux kernel's Bluetooth stack (tests/_test_qemu_guest.ts):
 * `btvirt` (bluez-test-tools) makes six LE controllers on one virtual air through
 * `hci_vhci`; four advertise the pvvx, atc1441, BTHome and BeeWi frames from their own
 * addresses (`btmgmt add-adv -c`), and `main.ts` scans with noble's raw HCI socket on
 * the others (`NOBLE_HCI_DEVICE_ID`). One collector pass writes each one's temperature,
 * humidity and battery with its `sensor` tag; the reader prints the BeeWi reading.
 * A sensor that never advertises, a powered-off controller, an adapter number with no
 * adapter and a process without CAP_NET_RAW/CAP_NET_ADMIN give their documented line
 * and exit status. A descriptor opened after a scan stays its user's.
 *
 * One boot; skipped with a printed reason when qemu-system or the kernel is missing,
 * failing under CI=true.
 */
import assert from "node:assert/strict";
import {
  checkGuestRun,
  guestPrelude,
  guestResult,
} from "./_test_guest_script.ts";
import {
  advertiseLines,
  BTMGMT_FUNCTIONS,
  storedPoints,
  THERMOMETERS,
} from "./_test_guest_thermometers.ts";
import { guestAvailability, runGuest } from "./_test_qemu_guest.ts";

const available = guestAvailability("kernel BLE suite", {
  tools: ["btvirt", "btmgmt", "setpriv", "script"],
});

const GHOST = "00:11:22:33:44:55";
const TIMEOUT_MS = 40_000;

function script(): string {
  const store = "TSDB_HOST=127.0.0.1 TSDB_PORT=8086";
  const nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups";
  return `${guestPrelude(available.kernel!)}
step store
start_store
step modules
for module in hci_vhci algif_skcipher algif_hash cmac ecb; do kmod "$module"; done
step btvirt
btvirt -L -l6 >/tmp/btvirt.log 2>&1 &
for _ in $(seq 1 300); do [ "$(ls /sys/class/bluetooth | wc -l)" -ge 6 ] && break; sleep 0.1; done
ls /sys/class/bluetooth
step advertise
${BTMGMT_FUNCTIONS}
${advertiseLines(THERMOMETERS, 2)}
bt --index 0 power on
bt --index 1 power on
KNOWN="${
    THERMOMETERS.map((t) => `${t.name}=${t.kind}:$ADDRESS_${t.name}`).join(",")
  }"
SENSORS="${
    THERMOMETERS.map((t) => `${t.name}=${t.kind}:$ADDRESS_${t.name}`).join(",")
  },ghost=bthome:${GHOST}"
step wait-store
wait_store || exit 1
step scans
spawn homewire pass ${store} TSDB_DATABASE=pass NOBLE_HCI_DEVICE_ID=0 TEMPERATURE_TIMEOUT_MS=${TIMEOUT_MS} PRESSURE_SENSOR=none "BLE_SENSORS=$SENSORS" -- collector --once
spawn homewire reader NOBLE_HCI_DEVICE_ID=1 READER_TIMEOUT_MS=${TIMEOUT_MS} -- reader "$ADDRESS_cellar"
spawn homewire no-adapter ${store} TSDB_DATABASE=no_adapter NOBLE_HCI_DEVICE_ID=9 TEMPERATURE_TIMEOUT_MS=${TIMEOUT_MS} PRESSURE_SENSOR=none "BLE_SENSORS=$SENSORS" -- collector --once
wait_batch
step permissions
mkdir -p /tmp/work/reader-nobody /tmp/work/collector-nobody
chmod 0777 /tmp/work/reader-nobody /tmp/work/collector-nobody
homewire_prefix="${nobody}" spawn homewire reader-nobody NOBLE_HCI_DEVICE_ID=1 READER_TIMEOUT_MS=${TIMEOUT_MS} -- reader "$ADDRESS_cellar"
homewire_prefix="${nobody}" spawn homewire collector-nobody ${store} TSDB_DATABASE=collector_nobody TSDB_BUFFER_PATH=:memory: NOBLE_HCI_DEVICE_ID=0 TEMPERATURE_TIMEOUT_MS=${TIMEOUT_MS} PRESSURE_SENSOR=none "BLE_SENSORS=$SENSORS" -- collector --once
step powered-off
bt --index 1 power off
spawn homewire powered-off ${store} TSDB_DATABASE=powered_off NOBLE_HCI_DEVICE_ID=1 TEMPERATURE_TIMEOUT_MS=${TIMEOUT_MS} PRESSURE_SENSOR=none "BLE_SENSORS=$SENSORS" -- collector --once
wait_batch
step descriptors
for mode in bluetooth stopped; do
  (cd /tmp && NOBLE_HCI_DEVICE_ID=0 timeout 120 deno run -A --cached-only --v8-flags=--expose-gc "$REPO/tests/_test_guest_hci_descriptor.ts" "$mode" 2>&1 | sed 's/^/@@/' | grep '^@@descriptors' || echo "@@descriptors $mode: no verdict")
done
step bluetoothd
# As on Raspberry Pi OS: the system bus and bluetoothd own the controllers too.
mkdir -p /run/dbus
mount -t tmpfs tmpfs /var/lib/bluetooth
dbus-daemon --system --fork
/usr/libexec/bluetooth/bluetoothd -n >/tmp/bluetoothd.log 2>&1 &
on_bus() { busctl --system list --no-pager 2>/dev/null | grep -q '^org\.bluez '; }
for _ in $(seq 1 300); do on_bus && break; sleep 0.2; done
echo "@@bluetoothd $(on_bus && echo on the bus || echo missing)"
${
    THERMOMETERS.map((t, i) => `bt --index ${i + 2} add-adv -c -d ${t.ad} 1`)
      .join("\n")
  }
homewire bluetoothd ${store} TSDB_DATABASE=bluetoothd NOBLE_HCI_DEVICE_ID=0 TEMPERATURE_TIMEOUT_MS=${TIMEOUT_MS} PRESSURE_SENSOR=none "BLE_SENSORS=$KNOWN" -- collector --once
sed 's/^/@@bluetoothd-log /' /tmp/bluetoothd.log | head -n 20
step done
`;
}

Deno.test({
  name: "BLE thermometers are read on the kernel's Bluetooth stack",
  ignore: available.ignore,
  async fn(t) {
    assert.deepEqual(available.missing, [], "the kernel suites need these");
    const run = await runGuest({
      kernel: available.kernel!,
      script: script(),
      timeoutMs: 600_000,
    });
    console.log(
      `kernel BLE suite: guest ran ${run.wallMs} ms (${
        run.lines.filter((line) => line.startsWith("@@ran")).join("; ")
      })`,
    );
    const { console: console_, job, step, finish } = checkGuestRun(t, run);
    const addresses = new Map(
      run.lines.filter((line) => line.startsWith("@@address ")).map((line) => {
        const [, name, address] = line.split(" ");
        return [name!, address!];
      }),
    );

    await step("each controller advertises from its own address", () => {
      assert.equal(addresses.size, 4, console_);
      for (const address of addresses.values()) {
        assert.match(address, /^[0-9A-F]{2}(:[0-9A-F]{2}){5}$/);
      }
      assert.equal(new Set(addresses.values()).size, 4);
    });

    await step(
      "one collector pass writes every thermometer's readings with its sensor tag",
      async () => {
        const { status, output } = await guestResult(job, "pass");
        assert.equal(status, 0, output);
        const points = await storedPoints(job, "pass");
        for (const thermometer of THERMOMETERS) {
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
        assert.ok(
          ![...points.keys()].some((key) => key.endsWith(" ghost")),
          output,
        );
        assert.match(
          output,
          new RegExp(
            `\\[ERROR\\] .*Indoor step: no reading from BLE sensor "ghost" within ${TIMEOUT_MS} ms`,
          ),
        );
      },
    );

    await step(
      'the reader prints the BeeWi reading as {"temperature":"21.5"}',
      async () => {
        const { status, output } = await guestResult(job, "reader");
        assert.equal(status, 0, output);
        assert.equal(output, '{"temperature":"21.5"}\n');
      },
    );

    const unavailable: [string, RegExp][] = [
      [
        "no-adapter",
        /\[ERROR\] .*Indoor step: no reading from the BLE sensors \(kitchen, bedroom, hall, cellar, ghost\): Bluetooth is unavailable: /,
      ],
      [
        "powered-off",
        /\[ERROR\] .*Indoor step: no reading from the BLE sensors \(kitchen, bedroom, hall, cellar, ghost\): Bluetooth is unavailable: the adapter is powered off \(rfkill unblock bluetooth\) \(adapter state "poweredOff"\)/,
      ],
      [
        "collector-nobody",
        /\[ERROR\] .*Indoor step: no reading from the BLE sensors \(kitchen, bedroom, hall, cellar, ghost\): Bluetooth is unavailable: permission denied: this process lacks CAP_NET_RAW and CAP_NET_ADMIN, which a Bluetooth scan needs: run it as root, give its systemd unit AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN, or run sudo setcap/,
      ],
    ];
    for (const [name, line] of unavailable) {
      await step(
        `${name}: the documented error line and exit status 1`,
        async () => {
          const { status, output } = await guestResult(job, name);
          assert.equal(status, 1, output);
          assert.match(output, line);
          assert.match(output, /The pass collected no point: nothing to write/);
        },
      );
    }

    await step(
      "the reader without CAP_NET_RAW/CAP_NET_ADMIN says so and exits 1",
      async () => {
        const { status, output } = await guestResult(job, "reader-nobody");
        assert.equal(status, 1, output);
        assert.match(
          output,
          /\[ERROR\] .*Cannot read the thermometer [0-9A-F:]{17}: Bluetooth is unavailable: permission denied: this process lacks CAP_NET_RAW and CAP_NET_ADMIN/,
        );
      },
    );

    await step("a descriptor opened after a scan stays its user's", () => {
      const verdicts = run.lines.filter((line) =>
        line.startsWith("@@descriptors")
      );
      assert.ok(
        verdicts.includes("@@descriptors bluetooth: kept"),
        verdicts.join("\n") || console_,
      );
      // What the one long-lived Bluetooth avoids: the library closes a stopped
      // socket's number again, under whatever was opened in the meantime.
      assert.match(
        verdicts.find((line) => line.startsWith("@@descriptors stopped")) ??
          "",
        /^@@descriptors stopped: closed under its user: /,
        verdicts.join("\n"),
      );
    });
    await step(
      "with bluetoothd running, one pass still reads every thermometer",
      async () => {
        assert.ok(run.lines.includes("@@bluetoothd on the bus"), console_);
        const { status, output } = await guestResult(job, "bluetoothd");
        assert.equal(status, 0, output);
        const points = await storedPoints(job, "bluetoothd");
        assert.equal(points.size, 12, `${[...points].join("; ")}\n${output}`);
      },
    );
    await finish();
  },
});
