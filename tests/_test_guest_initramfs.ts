/**
 * The kernel suites' initramfs: busybox-static, the modules that reach the host root
 * over 9p, and an `/init` that runs the job in a chroot into that root, or boots
 * systemd on an overlay of it. An arm64 guest cannot run the host's binaries: its
 * chroot is an overlay of the kernel's own folder, where install_deps.sh unpacked an
 * arm64 userland, with the host folders the job needs (the repository, the Deno cache,
 * the arm64 Deno) bound in at their host paths. Used by tests/_test_qemu_guest.ts.
 *
 * @module
 */
/** The architectures the kernel suites boot. */
export type GuestArch = "amd64" | "arm64";

/** A guest kernel, as `scripts/install_deps.sh` lays it out in `.cache/kernel/`. */
export interface GuestKernel {
  /** The kernel's architecture. */
  arch: GuestArch;
  /** `uname -r` of the guest, such as 6.1.0-56-amd64. */
  release: string;
  /**
   * Folder holding `boot/` and `lib/modules/<release>/` (for arm64, also the arm64
   * userland the guest runs in).
   */
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
 * The arm64 guest's root: a writable overlay of the kernel's folder (its arm64
 * userland) at `/newroot`, busybox's applets where the packages left a command out,
 * and the host folders named in the job folder's `.binds` bound at their own paths.
 */
function foreignRoot(kernel: GuestKernel): string {
  // Through the host root: a symbolic link on the way would point outside /host.
  const dir = Deno.realPathSync(kernel.dir);
  return `mkdir -p /overlay /newroot
mount -t tmpfs tmpfs /overlay
mkdir -p /overlay/upper /overlay/work /job
mount -t overlay overlay -o lowerdir=/host${dir},upperdir=/overlay/upper,workdir=/overlay/work /newroot
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 job /job || { echo "@@step mount-job-failed"; poweroff -f; }
while read -r path; do
  [ -n "$path" ] || continue
  mkdir -p "/newroot$path"
  mount -o bind "/host$path" "/newroot$path"
done </job/.binds
mkdir -p /newroot/sbin /newroot/usr/sbin /newroot/usr/bin /newroot/usr/local/bin /newroot/tmp /newroot/proc /newroot/sys /newroot/dev /newroot/run
ln -sf "$(cat /job/.deno_bin)" /newroot/usr/local/bin/deno
umount /job
chroot /newroot /bin/busybox --install -s
`;
}

/**
 * The initramfs' `/init`: mounts the host root and runs the job in a chroot, or with
 * `systemd`, switches to an overlay of the host root (writable, on a tmpfs) with
 * systemd as PID 1, which starts a unit running the job. An arm64 guest runs the job
 * in {@linkcode foreignRoot}.
 */
function initScript(
  kernel: GuestKernel,
  modules: string[],
  systemd: boolean,
): string {
  // The folder the job's chroot is made in.
  const root = kernel.arch === "amd64" ? "/host" : "/newroot";
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
${systemd ? systemdSwitch() : ""}${
    kernel.arch === "amd64" ? "" : foreignRoot(kernel)
  }mount -t proc proc ${root}/proc
mount -t sysfs sys ${root}/sys
mount -t devtmpfs dev ${root}/dev
mkdir -p ${root}/dev/pts ${root}/dev/shm
mount -t devpts devpts ${root}/dev/pts
mount -t tmpfs tmpfs ${root}/dev/shm
mount -t tmpfs tmpfs ${root}/tmp
mount -t tmpfs tmpfs ${root}/run
mkdir -p ${root}/tmp/job ${root}/run/lock
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 job ${root}/tmp/job || { echo "@@step mount-job-failed"; poweroff -f; }
ip link set lo up
hostname homewire-guest
echo "@@step chroot"
chroot ${root} /usr/bin/env -i HOME=/tmp/home TERM=dumb NO_COLOR=1 \\
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \\
  DENO_DIR="$(cat ${root}/tmp/job/.deno_dir)" \\
  /bin/bash -c 'mkdir -p /tmp/home && cd "$(cat /tmp/job/.cwd)" && exec /bin/bash /tmp/job/script.sh' </dev/null
status=$?
echo "$status" > ${root}/tmp/job/.status
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
  if (systemd && kernel.arch !== "amd64") {
    throw new Error("The systemd boot is made for the amd64 guest only");
  }
  const tree = `${dir}/initramfs`;
  await Deno.mkdir(`${tree}/bin`, { recursive: true });
  await Deno.mkdir(`${tree}/modules`);
  // The arm64 busybox-static is the one install_deps.sh unpacked with the kernel.
  const busybox = kernel.arch === "amd64"
    ? "/bin/busybox"
    : `${kernel.dir}/bin/busybox`;
  await Deno.copyFile(busybox, `${tree}/bin/busybox`);
  await Deno.chmod(`${tree}/bin/busybox`, 0o755);
  const modules = await bootModules(kernel);
  for (const [i, path] of modules.entries()) {
    await Deno.copyFile(path, `${tree}/modules/${i}.ko`);
  }
  await Deno.writeTextFile(
    `${tree}/init`,
    initScript(kernel, modules, systemd),
    {
      mode: 0o755,
    },
  );
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
