/**
 * The kernel suites' initramfs: busybox-static, the modules that reach the host root
 * over 9p, and an `/init` that runs the job in a chroot into that root, or boots
 * systemd on an overlay of it. Used by tests/_test_qemu_guest.ts.
 *
 * @module
 */
/** A guest kernel, as `scripts/install_deps.sh` lays it out in `.cache/kernel/`. */
export interface GuestKernel {
  /** `uname -r` of the guest, such as 6.1.0-56-amd64. */
  release: string;
  /** Folder holding `boot/` and `lib/modules/<release>/`. */
  dir: string;
  /** The kernel image. */
  image: string;
}

/** The modules the initramfs loads to reach the host root (and their order). */
const BOOT_MODULES = ["virtio_pci", "9pnet_virtio", "9p", "overlay"];

async function run(command: string, args: string[], cwd?: string) {
  const output = await new Deno.Command(command, {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(
      `${command} ${args.join(" ")} failed: ${
        new TextDecoder().decode(output.stderr)
      }`,
    );
  }
  return new TextDecoder().decode(output.stdout);
}

/**
 * The boot modules' `insmod` lines in dependency order, from the kernel's own index
 * (`modprobe --show-depends` on the host, pointed at the laid kernel).
 */
async function bootModules(kernel: GuestKernel): Promise<string[]> {
  const paths: string[] = [];
  for (const name of BOOT_MODULES) {
    const said = await run(modprobe(), [
      "-d",
      kernel.dir,
      "-S",
      kernel.release,
      "--show-depends",
      name,
    ]);
    for (const line of said.split("\n")) {
      const path = /^insmod (\S+)/.exec(line)?.[1];
      if (path && !paths.includes(path)) paths.push(path);
    }
  }
  return paths;
}

/**
 * The initramfs' `/init`: mounts the host root and runs the job in a chroot, or with
 * `systemd`, switches to an overlay of the host root (writable, on a tmpfs) with
 * systemd as PID 1, which starts a unit running the job.
 */
function initScript(modules: string[], systemd: boolean): string {
  return `#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /bin /sbin /usr/bin /usr/sbin /host
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
exec >/dev/console 2>&1
echo "@@step initramfs"
${
    modules.map((path, i) =>
      `insmod /modules/${i}.ko || echo "@@insmod-failed ${path}"`
    )
      .join("\n")
  }
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose host /host || { echo "@@step mount-host-failed"; poweroff -f; }
${systemd ? systemdSwitch() : ""}mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t devtmpfs dev /host/dev
mkdir -p /host/dev/pts /host/dev/shm
mount -t devpts devpts /host/dev/pts
mount -t tmpfs tmpfs /host/dev/shm
mount -t tmpfs tmpfs /host/tmp
mount -t tmpfs tmpfs /host/run
mkdir -p /host/tmp/job /host/run/lock
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 job /host/tmp/job || { echo "@@step mount-job-failed"; poweroff -f; }
ip link set lo up
hostname homewire-guest
echo "@@step chroot"
chroot /host /usr/bin/env -i HOME=/tmp/home TERM=dumb NO_COLOR=1 \\
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
  DENO_DIR="$(cat /host/tmp/job/.deno_dir)" \\
  /bin/bash -c 'mkdir -p /tmp/home && cd "$(cat /tmp/job/.cwd)" && exec /bin/bash /tmp/job/script.sh' </dev/null
status=$?
echo "$status" > /host/tmp/job/.status
sync
echo "@@exit $status"
poweroff -f
`;
}

/**
 * The systemd boot: the host root read-only under a tmpfs overlay, the job folder
 * at /tmp/job, a target that starts only sysinit and the unit running the script,
 * whose end powers the guest off.
 */
function systemdSwitch(): string {
  return `mkdir -p /overlay /newroot
mount -t tmpfs tmpfs /overlay
mkdir -p /overlay/upper /overlay/work
mount -t overlay overlay -o lowerdir=/host,upperdir=/overlay/upper,workdir=/overlay/work /newroot
mkdir -p /newroot/tmp/job /newroot/etc/systemd/system
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 job /newroot/tmp/job || { echo "@@step mount-job-failed"; poweroff -f; }
cat >/newroot/etc/systemd/system/homewire-guest.target <<'UNIT'
[Unit]
Description=The kernel suite
Requires=sysinit.target homewire-guest.service
After=sysinit.target
AllowIsolate=yes
UNIT
cat >/newroot/etc/systemd/system/homewire-guest.service <<UNIT
[Unit]
Description=The kernel suite's script
After=sysinit.target
[Service]
Type=oneshot
Environment=HOME=/root TERM=dumb NO_COLOR=1 DENO_DIR=$(cat /newroot/tmp/job/.deno_dir)
WorkingDirectory=$(cat /newroot/tmp/job/.cwd)
StandardInput=null
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
ExecStart=/bin/bash -c 'bash /tmp/job/script.sh; status=\\$\\$?; echo \\$\\$status >/tmp/job/.status; sync; echo "@@exit \\$\\$status"; systemctl poweroff --force --force'
UNIT
# systemd-tmpfiles would walk the host's /tmp and /var over 9p for a minute and more.
ln -sf /dev/null /newroot/etc/systemd/system/systemd-tmpfiles-setup.service
ip link set lo up
hostname homewire-guest
echo "@@step systemd"
exec switch_root /newroot /lib/systemd/systemd --unit=homewire-guest.target --log-level=warning --show-status=false
`;
}

/** Builds the initramfs (busybox-static, the boot modules, `/init`) into `dir`. */
export async function buildInitramfs(
  kernel: GuestKernel,
  dir: string,
  systemd: boolean,
): Promise<string> {
  const tree = `${dir}/initramfs`;
  await Deno.mkdir(`${tree}/bin`, { recursive: true });
  await Deno.mkdir(`${tree}/modules`);
  await Deno.copyFile("/bin/busybox", `${tree}/bin/busybox`);
  await Deno.chmod(`${tree}/bin/busybox`, 0o755);
  const modules = await bootModules(kernel);
  for (const [i, path] of modules.entries()) {
    await Deno.copyFile(path, `${tree}/modules/${i}.ko`);
  }
  await Deno.writeTextFile(`${tree}/init`, initScript(modules, systemd), {
    mode: 0o755,
  });
  const image = `${dir}/initramfs.cpio`;
  await run("/bin/sh", [
    "-c",
    `find . | cpio --quiet -o -H newc > "${image}"`,
  ], tree);
  await Deno.remove(tree, { recursive: true });
  return image;
}

/** `modprobe`, also where PATH may leave out the sbin folders. */
function modprobe(): string {
  for (
    const path of ["/usr/sbin/modprobe", "/sbin/modprobe", "/usr/bin/modprobe"]
  ) {
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch {
      // not there
    }
  }
  return "modprobe";
}
