/**
 * A power cut on a real Linux kernel (tests/_test_qemu_guest.ts): `TSDB_BUFFER_PATH` is on
 * an ext4 file system on a virtio disk (an image made here with mkfs.ext4). With the
 * store down, `collector --once` passes keep their points in the buffer; qemu is
 * killed with SIGKILL the moment the second pass logs its point, while it retries the
 * store, so what the guest had not flushed to the disk is lost as in a power cut. Booted again with the store up, one
 * pass writes what the buffer holds: every point a pass had logged as kept reaches
 * the store.
 *
 * Two boots; skipped with a printed reason when qemu-system, mkfs.ext4 or the kernel
 * is missing, failing under CI=true.
 */
import assert from "node:assert/strict";
import { guestPrelude, storedLines } from "./_test_guest_script.ts";
import { guestAvailability, runGuest } from "./_test_qemu_guest.ts";

const available = guestAvailability("kernel power cut suite", {
  tools: ["mkfs.ext4"],
});

const BUFFER = "/tmp/buffer/collector.sqlite3";

/** One `collector --once` pass reading `hPa` from a fake IIO device, output on the console. */
function pass(label: string, hPa: number, port: number): string {
  return `printf '%s\\n' ${hPa / 10} >/tmp/iio/iio:device0/in_pressure_input
step ${label}
(cd /tmp/work && env -i PATH="$PATH" HOME="$HOME" DENO_DIR="$DENO_DIR" NO_COLOR=1 \\
  TSDB_HOST=127.0.0.1 TSDB_PORT=${port} TSDB_DATABASE=home TSDB_TIMEOUT_MS=2000 \\
  TSDB_BUFFER_PATH=${BUFFER} PRESSURE_SENSOR=iio PRESSURE_IIO_ROOT=/tmp/iio \\
  deno run -A --unstable-cron --cached-only --config="$REPO/deno.json" "$REPO/main.ts" collector --once \\
  2>&1 </dev/null | sed -u 's/^/@@${label} /'; echo "@@${label} exit \${PIPESTATUS[0]}")`;
}

function script(boot: "cut" | "restore"): string {
  const setup = `${guestPrelude(available.kernel!)}
step disk
kmod virtio_blk
kmod ext4
mkdir -p /tmp/buffer /tmp/work /tmp/iio/iio:device0
for _ in $(seq 1 100); do [ -e /dev/vda ] && break; sleep 0.1; done
mount -t ext4 /dev/vda /tmp/buffer || exit 1
echo lps25h >/tmp/iio/iio:device0/name
`;
  if (boot === "cut") {
    // Nobody listens on 8087: each pass keeps its point; the second never ends.
    return `${setup}
${pass("pass1", 1001, 8087)}
${pass("pass2", 1002, 8087)}
step not-killed
`;
  }
  return `${setup}
step store
start_store
wait_store || exit 1
${pass("restore", 1003, 8086)}
step done
`;
}

Deno.test({
  name: "points kept in the buffer survive a power cut",
  ignore: available.ignore,
  async fn() {
    assert.deepEqual(available.missing, [], "the kernel suites need these");
    const dir = await Deno.makeTempDir({ prefix: "homewire-power-cut-" });
    try {
      const disk = `${dir}/buffer.ext4`;
      const image = await Deno.open(disk, { create: true, write: true });
      await image.truncate(64 * 1024 * 1024);
      image.close();
      const mkfs = await new Deno.Command("mkfs.ext4", {
        args: ["-q", "-F", disk],
        stdout: "null",
        stderr: "piped",
      }).output();
      assert.ok(mkfs.success, new TextDecoder().decode(mkfs.stderr));

      const cut = await runGuest({
        kernel: available.kernel!,
        script: script("cut"),
        disks: [disk],
        timeoutMs: 480_000,
        // The power cut: as soon as the second pass logged its point (the collector
        // logs a point once it is in the buffer), while the pass retries the store.
        killWhen: (line) =>
          /^@@pass2 .*\[INFO\] Write .*"value":1002\b/.test(line),
      });
      const cutConsole = cut.lines.join("\n");
      assert.ok(cut.killed, `the guest was not cut:\n${cutConsole}`);
      // What the passes logged as kept: pass 1 ended saying so; pass 2 had logged its
      // point (in the buffer) when the power went.
      const pass1 = cut.lines.filter((line) => line.startsWith("@@pass1 "));
      assert.ok(
        pass1.some((line) =>
          /\[ERROR\] 1 point not written to the time-series store: .*; kept in \/tmp\/buffer\/collector\.sqlite3 for the next start/
            .test(line)
        ),
        cutConsole,
      );
      assert.ok(pass1.includes("@@pass1 exit 1"), cutConsole);

      const restore = await runGuest({
        kernel: available.kernel!,
        script: script("restore"),
        disks: [disk],
        timeoutMs: 480_000,
      });
      const restoreConsole = restore.lines.join("\n");
      console.log(
        `kernel power cut suite: boot with the cut ${cut.wallMs} ms, boot with the store ${restore.wallMs} ms`,
      );
      assert.equal(restore.status, 0, restoreConsole);
      assert.ok(
        restore.lines.some((line) =>
          /^@@restore .*Time-series buffer holds 2 points from an earlier run/
            .test(line)
        ),
        restoreConsole,
      );
      assert.ok(restore.lines.includes("@@restore exit 0"), restoreConsole);
      const values = (await storedLines(restore.jobDir, "home"))
        .filter((line) => line.startsWith("home_pressure,"))
        .map((line) => Math.round(Number(/ value=([^, ]+)/.exec(line)?.[1])))
        .sort();
      assert.deepEqual(values, [1001, 1002, 1003], restoreConsole);
      await Deno.remove(cut.jobDir, { recursive: true });
      await Deno.remove(restore.jobDir, { recursive: true });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
