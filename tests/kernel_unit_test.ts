/**
 * The collector's systemd unit on a real Linux kernel (tests/_test_qemu_guest.ts) with
 * systemd as PID 1: `deploy/homewire-deno@.service` installed as docs/deploy.md and the
 * unit file's header say (the `homewire` user, `/etc/homewire/collector.env`, a drop-in
 * with `SupplementaryGroups=i2c` and, in the second run, the Bluetooth capabilities).
 * The guest has a BMP280 on `/dev/i2c-0` (`i2c-stub`, group `i2c` as Raspberry Pi OS
 * sets it) and a BTHome thermometer (`btvirt`), with bluetoothd started by udev as on
 * Raspberry Pi OS. With the group alone, the pressure is
 * read and the Bluetooth scan fails with the capability error the docs describe; with
 * the capabilities, both are read. `systemctl stop` ends each run with status 0
 * within the unit's `TimeoutStopSec`.
 *
 * One boot; skipped with a printed reason when qemu-system or the kernel is missing,
 * failing under CI=true.
 */
import assert from "node:assert/strict";
import {
  ADC_P,
  ADC_T,
  calibrationBytes,
  DATASHEET,
} from "../drivers/pressure/_test_bmp280_datasheet.ts";
import { guestPrelude } from "./_test_guest_script.ts";
import { guestAvailability, runGuest } from "./_test_qemu_guest.ts";

const available = guestAvailability("kernel unit suite", {
  tools: ["i2cset", "btvirt", "btmgmt", "script", "systemctl", "useradd"],
});

const BTHOME = "0c16d2fc" + "40" + "015a" + "02c409" + "03bf13";
const UNIT = "homewire-deno@collector";

function script(): string {
  const bmp280 = [
    [0xd0, 0x58],
    ...[...calibrationBytes(DATASHEET)].map((value, i) => [0x88 + i, value]),
    ...[
      ADC_P >> 12,
      (ADC_P >> 4) & 0xff,
      (ADC_P & 0x0f) << 4,
      ADC_T >> 12,
      (ADC_T >> 4) & 0xff,
      (ADC_T & 0x0f) << 4,
    ]
      .map((value, i) => [0xf7 + i, value]),
  ].map(([register, value]) => `i2cset -y 0 0x77 ${register} ${value} b`)
    .join("\n");
  return `${guestPrelude(available.kernel!)}
step hardware
kmod i2c-stub chip_addr=0x77
kmod i2c-dev
${bmp280}
for module in hci_vhci algif_skcipher algif_hash cmac ecb; do kmod "$module"; done
btvirt -L -l3 >/tmp/btvirt.log 2>&1 &
for _ in $(seq 1 300); do [ "$(ls /sys/class/bluetooth | wc -l)" -ge 3 ] && break; sleep 0.1; done
bt() { script -qec "btmgmt $*" /dev/null </dev/null | tr -d '\\r'; }
# The controllers' numbers, as the kernel gave them: the second scans, the third
# advertises (with bluetoothd running, the management interface refused btvirt's
# first one, "Invalid Index").
read -r _ SCAN ADVERTISE < <(ls /sys/class/bluetooth | sed 's/^hci//' | sort -n | tr '\n' ' ')
echo "@@controllers scan hci$SCAN, advertise hci$ADVERTISE"
# udev starts bluetoothd as the controllers appear, as on Raspberry Pi OS. When it
# takes a controller over, bluetoothd removes every advertising instance the controller
# has (BlueZ's advertising manager resets them): an advert added before that is gone
# before the unit scans. So the thermometer advertises once bluetoothd has its
# controller on the bus, and the instance is checked to be there.
owned() { busctl --system tree org.bluez --list 2>/dev/null | grep -qx "/org/bluez/hci$1"; }
for _ in $(seq 1 300); do owned "$SCAN" && owned "$ADVERTISE" && break; sleep 0.2; done
echo "@@bluetoothd $(systemctl is-active bluetooth), owns$(busctl --system tree org.bluez --list 2>/dev/null | sed -n 's|^/org/bluez/\\(hci[0-9]*\\)$| \\1|p' | tr -d '\\n')"
advertising() { bt --index "$ADVERTISE" advinfo | sed -n 's/^Instances list with \\([0-9]*\\) item.*/\\1/p'; }
# The management interface may refuse an index for a moment while bluetoothd sets it up.
for _ in $(seq 1 30); do
  bt --index "$ADVERTISE" power on | grep -q "Set Powered complete" &&
    bt --index "$ADVERTISE" add-adv -c -d ${BTHOME} 1 | grep -q "Instance added" &&
    sleep 0.5 && [ "$(advertising)" = 1 ] && break
  sleep 1
done
ADDRESS=$(bt --index "$ADVERTISE" info | sed -n 's/^\\s*addr \\([0-9A-F:]\\{17\\}\\).*/\\1/p' | head -n 1)
for _ in $(seq 1 30); do
  bt --index "$SCAN" power on | grep -q "Set Powered complete" && break
  sleep 1
done
bt --index "$SCAN" info | grep -q "current settings: powered" && echo "@@scanner powered"
step store
start_store
wait_store || exit 1
step install
# As the unit file's header says, with this folder as /opt/homewire and the machine's
# deno as /usr/local/bin/deno; the i2c group and its device node as Raspberry Pi OS has.
groupadd -f --system i2c
chgrp i2c /dev/i2c-0 && chmod 0660 /dev/i2c-0
useradd --system --home-dir /var/lib/homewire --shell /usr/sbin/nologin homewire
install -d -o homewire -g homewire /var/lib/homewire
ln -sfn "$REPO" /opt/homewire
[ -x /usr/local/bin/deno ] || ln -sf "$(command -v deno)" /usr/local/bin/deno
install -d -m 0750 -o root -g homewire /etc/homewire
cat >/tmp/collector.env <<ENV
TSDB_HOST=127.0.0.1
TSDB_PORT=8086
TSDB_DATABASE=unit
PRESSURE_SENSOR=i2c:bmp280:0:0x77
BLE_SENSORS=hall=bthome:$ADDRESS
TEMPERATURE_TIMEOUT_MS=60000
NOBLE_HCI_DEVICE_ID=$SCAN
ENV
install -m 0640 -o root -g homewire /tmp/collector.env /etc/homewire/collector.env
cp "$REPO/deploy/homewire-deno@.service" /etc/systemd/system/
mkdir -p /etc/systemd/system/${UNIT}.service.d
printf '[Service]\\nSupplementaryGroups=i2c\\n' >/etc/systemd/system/${UNIT}.service.d/i2c.conf
systemctl daemon-reload

# Starts the unit, waits for its pass to log its BLE outcome, stops it and reports.
run_unit() {
  local name="$1" started stopped
  local cursor
  cursor=$(journalctl --show-cursor -n 0 -q | sed -n 's/^-- cursor: //p')
  systemctl start ${UNIT}
  local began=$SECONDS until=$((SECONDS + 300)) next=$((SECONDS + 30))
  while [ "$SECONDS" -lt "$until" ]; do
    journalctl -u ${UNIT} --after-cursor="$cursor" -o cat -q 2>/dev/null |
      grep -qE 'no reading from (the )?BLE sensor|Write .*"sensor":"hall"' && break
    # Where a slow or hung start stands, on the console a hung guest's error shows.
    if [ "$SECONDS" -ge "$next" ]; then
      next=$((SECONDS + 30))
      echo "@@$name waiting $((SECONDS - began)) s, unit $(systemctl is-active ${UNIT}), load $(cut -d' ' -f1 /proc/loadavg): $(journalctl -u ${UNIT} --after-cursor="$cursor" -o cat -q 2>/dev/null | tail -n 1 | cut -c1-160)"
    fi
    sleep 1
  done
  echo "@@$name outcome after $((SECONDS - began)) s"
  sleep 2
  started=$(date +%s%N)
  systemctl stop ${UNIT}
  stopped=$(date +%s%N)
  echo "@@$name stop-ms $(((stopped - started) / 1000000))"
  echo "@@$name $(systemctl show ${UNIT} -p ExecMainStatus -p Result -p MainPID --no-pager | tr '\\n' ' ')"
  journalctl -u ${UNIT} --after-cursor="$cursor" -o cat -q --no-pager >"/tmp/job/$name.journal"
  cp /tmp/job/unit.lp "/tmp/job/$name.lp" 2>/dev/null; rm -f /tmp/job/unit.lp
}
step group-only
run_unit group-only
step capabilities
echo "@@advertising $(advertising) instance"
printf '[Service]\\nAmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN\\nCapabilityBoundingSet=CAP_NET_RAW CAP_NET_ADMIN\\n' \\
  >/etc/systemd/system/${UNIT}.service.d/bluetooth.conf
systemctl daemon-reload
run_unit capabilities
step done
`;
}

Deno.test({
  name:
    "the collector's unit reads the sensors under systemd, and stops cleanly",
  ignore: available.ignore,
  async fn(t) {
    assert.deepEqual(available.missing, [], "the kernel suites need these");
    // When each step began, for the wall time each one took.
    const began: [string, number][] = [["boot", Date.now()]];
    const run = await runGuest({
      kernel: available.kernel!,
      script: script(),
      systemd: true,
      timeoutMs: 600_000,
      onLine: (line) => {
        const name = /^@@step (.+)$/.exec(line)?.[1];
        if (name) began.push([name, Date.now()]);
      },
    });
    const took = began.slice(0, -1).map(([name, at], i) =>
      `${name} ${((began[i + 1]![1] - at) / 1000).toFixed(1)} s`
    );
    console.log(
      `kernel unit suite: guest ran ${run.wallMs} ms (${took.join(", ")})`,
    );
    const console_ = run.lines.join("\n");
    // The job folder is kept when a check fails, for a look at what the guest left.
    let failed = false;
    const step = async (name: string, fn: () => void | Promise<void>) => {
      if (!(await t.step(name, fn))) failed = true;
    };
    assert.equal(run.status, 0, console_);
    assert.equal(run.steps.at(-1), "done", console_);
    const read = (file: string) =>
      Deno.readTextFile(`${run.jobDir}/${file}`).catch(() => "");
    const stopped = (name: string) => {
      const ms = Number(
        run.lines.find((line) => line.startsWith(`@@${name} stop-ms `))
          ?.split(" ")[2],
      );
      const show = run.lines.find((line) =>
        line.startsWith(`@@${name} ExecMainStatus`)
      ) ??
        run.lines.find((line) =>
          line.startsWith(`@@${name} `) && line.includes("ExecMainStatus=")
        ) ?? "";
      return { ms, show };
    };

    await step(
      "with the i2c group alone: pressure read, Bluetooth refused as the docs say",
      async () => {
        const journal = await read("group-only.journal");
        const lines = await read("group-only.lp");
        assert.match(
          lines,
          /^home_pressure,location=in value=1006\.53/m,
          journal,
        );
        assert.doesNotMatch(lines, /sensor=hall/);
        assert.match(
          journal,
          /no reading from the BLE sensors \(hall\): Bluetooth is unavailable: permission denied: this process lacks CAP_NET_RAW and CAP_NET_ADMIN, which a Bluetooth scan needs/,
        );
        const { ms, show } = stopped("group-only");
        assert.match(show, /ExecMainStatus=0/, console_);
        assert.ok(ms < 45_000, `stop took ${ms} ms`);
      },
    );

    await step(
      "with the unit's capabilities: pressure read, and a clean stop",
      async () => {
        const journal = await read("capabilities.journal");
        const lines = await read("capabilities.lp");
        assert.match(
          lines,
          /^home_pressure,location=in value=1006\.53/m,
          journal,
        );
        const { ms, show } = stopped("capabilities");
        assert.match(show, /ExecMainStatus=0/, console_);
        assert.match(show, /Result=success/, console_);
        assert.ok(ms < 45_000, `stop took ${ms} ms`);
      },
    );
    await step(
      "with the unit's capabilities: the thermometer is read too, beside bluetoothd",
      async () => {
        // udev started bluetoothd, which owns the controllers the unit scans beside.
        assert.ok(
          run.lines.some((line) =>
            line.startsWith("@@bluetoothd active, owns")
          ),
          console_,
        );
        // The advert was still there when the unit started (bluetoothd removes the
        // instances of a controller it takes over).
        assert.ok(run.lines.includes("@@advertising 1 instance"), console_);
        const journal = await read("capabilities.journal");
        const lines = await read("capabilities.lp");
        assert.match(
          lines,
          /^home_temperature,location=in,sensor=hall value=25 /m,
          journal,
        );
        assert.match(
          lines,
          /^home_humidity,location=in,sensor=hall value=50\.55 /m,
          journal,
        );
      },
    );
    if (failed) console.log(`The guest's job folder is kept: ${run.jobDir}`);
    else await Deno.remove(run.jobDir, { recursive: true });
  },
});
