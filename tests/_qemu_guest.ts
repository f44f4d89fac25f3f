/**
 * A real Linux kernel for the kernel suites: Debian's kernel (unpacked in
 * `.cache/kernel/<arch>/` by `scripts/install_deps.sh`) booted under
 * `qemu-system-<arch>` with TCG, a busybox-static initramfs that mounts this machine's
 * root read-only over 9p (with a tmpfs on `/tmp`), loopback up, and a shell script run
 * in a chroot into that root: the host's own `deno`, `node_modules`, Deno cache (read
 * only, `--cached-only`), `i2cset`, `btmgmt`... Nothing is downloaded in the guest; it
 * has no network but `lo`.
 *
 * The script prints `@@step <name>` lines; a guest that outlives its time is killed and
 * the error names the step it hung in. The script's folder is shared read-write at
 * `/tmp/job` (its files are the script's input and output).
 *
 * @module
 */

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** The architectures the kernel suites boot. */
export type GuestArch = "amd64" | "arm64";

const QEMU: Record<GuestArch, string> = {
  amd64: "qemu-system-x86_64",
  arm64: "qemu-system-aarch64",
};

/** The modules the initramfs loads to reach the host root (and their order). */
const BOOT_MODULES = ["virtio_pci", "9pnet_virtio", "9p", "overlay"];

/** The kernel laid by install_deps.sh: its release and folder. */
export interface GuestKernel {
  /** `uname -r` of the guest, such as 6.1.0-56-amd64. */
  release: string;
  /** Folder holding `boot/` and `lib/modules/<release>/`. */
  dir: string;
  /** The kernel image. */
  image: string;
}

/** Whether the kernel suites can run here, and why not. */
export interface GuestAvailability {
  /** True when the suite is to be skipped (never under CI=true). */
  ignore: boolean;
  /** What is missing, empty when everything is there. */
  missing: string[];
  /** The kernel, when laid. */
  kernel?: GuestKernel;
}

function which(name: string): string | undefined {
  const dirs = [
    ...(Deno.env.get("PATH") ?? "").split(":"),
    "/usr/sbin",
    "/sbin",
  ];
  for (const dir of dirs) {
    try {
      if (Deno.statSync(`${dir}/${name}`).isFile) return `${dir}/${name}`;
    } catch {
      // not there
    }
  }
  return undefined;
}

/** The newest kernel release laid in `.cache/kernel/<arch>/`. */
export function findGuestKernel(arch: GuestArch): GuestKernel | undefined {
  const base = `${ROOT}/.cache/kernel/${arch}`;
  let releases: string[] = [];
  try {
    releases = [...Deno.readDirSync(base)]
      .filter((entry) => entry.isDirectory && !entry.name.endsWith(".partial"))
      .map((entry) => entry.name)
      .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  } catch {
    return undefined;
  }
  const release = releases.at(-1);
  if (!release) return undefined;
  const dir = `${base}/${release}`;
  const image = `${dir}/boot/vmlinuz-${release}`;
  try {
    Deno.statSync(image);
    Deno.statSync(`${dir}/lib/modules/${release}/modules.dep.bin`);
  } catch {
    return undefined;
  }
  return { release, dir, image };
}

/**
 * Checks what a kernel suite needs (`tools`: host commands the guest script runs). Off
 * CI a missing piece skips the suite with a printed reason; under `CI=true` the suite
 * runs and fails on it.
 */
export function guestAvailability(
  suite: string,
  { arch = "amd64", tools = [] }: { arch?: GuestArch; tools?: string[] } = {},
): GuestAvailability {
  const missing: string[] = [];
  if (!which(QEMU[arch])) missing.push(QEMU[arch]);
  for (const tool of ["cpio", "modprobe", ...tools]) {
    if (!which(tool)) missing.push(tool);
  }
  try {
    Deno.statSync("/bin/busybox");
  } catch {
    missing.push("/bin/busybox (busybox-static)");
  }
  const kernel = findGuestKernel(arch);
  if (!kernel) {
    missing.push(`Debian's ${arch} kernel in .cache/kernel/${arch}/`);
  }
  const ci = Deno.env.get("CI") === "true";
  if (missing.length > 0 && !ci) {
    console.warn(
      `Skipping the ${suite}: missing ${
        missing.join(", ")
      } (bash scripts/install_deps.sh installs them)`,
    );
  }
  return { ignore: missing.length > 0 && !ci, missing, kernel };
}

/** What {@linkcode runGuest} runs. */
export interface GuestOptions {
  /** The kernel to boot (from {@linkcode guestAvailability}). */
  kernel: GuestKernel;
  /** Bash script run as root in the chroot, from the repository's folder. */
  script: string;
  /** The whole run (boot included) is killed after this long. */
  timeoutMs: number;
  /** Files put in the job folder (`/tmp/job` in the guest) before the boot. */
  files?: Record<string, string | Uint8Array>;
  /** The job folder to use (for a second boot on the same files). @default a new one */
  jobDir?: string;
  /** Raw disk images attached as virtio disks (`/dev/vda`, `/dev/vdb`...). */
  disks?: string[];
  /** Guest memory in MiB. @default 1536 */
  memoryMib?: number;
  /** Called with each console line as it comes. */
  onLine?: (line: string) => void;
  /** Kills qemu with SIGKILL at the first console line this returns true for. */
  killWhen?: (line: string) => boolean;
  /** Prints the console as it comes (HOMEWIRE_GUEST_LOG=1 too). */
  echo?: boolean;
  /**
   * Boots systemd as PID 1 on a writable overlay of the host root, and runs the
   * script from a unit (as root, job folder at `/tmp/job` too). @default false
   */
  systemd?: boolean;
}

/** How a guest run ended. */
export interface GuestRun {
  /** The script's exit status; undefined when the guest was killed. */
  status: number | undefined;
  /** The console: kernel messages and the script's output, one entry a line. */
  lines: string[];
  /** The `@@step` names, in order. */
  steps: string[];
  /** The job folder, with what the script left there. */
  jobDir: string;
  /** Wall time of the run. */
  wallMs: number;
  /** True when `killWhen` matched and qemu was killed. */
  killed: boolean;
}

const STEP = /^@@step (.+)$/;
const EXIT = /^@@exit (\d+)$/;

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
    const said = await run(which("modprobe") ?? "modprobe", [
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
async function buildInitramfs(
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

/**
 * Boots the guest, runs `options.script` in it and returns its status and console.
 * A guest still running after `timeoutMs` is killed and the promise rejects naming the
 * last `@@step` the script printed.
 *
 * @example
 * ```ts
 * const available = guestAvailability("pressure suite");
 * const run = await runGuest({ kernel: available.kernel!, script: "echo @@step hello", timeoutMs: 60_000 });
 * ```
 */
export async function runGuest(options: GuestOptions): Promise<GuestRun> {
  const started = Date.now();
  const jobDir = options.jobDir ??
    await Deno.makeTempDir({ prefix: "homewire-guest-" });
  const bootDir = await Deno.makeTempDir({ prefix: "homewire-boot-" });
  try {
    const initramfs = await buildInitramfs(
      options.kernel,
      bootDir,
      options.systemd ?? false,
    );
    await Deno.writeTextFile(`${jobDir}/script.sh`, options.script);
    await Deno.writeTextFile(`${jobDir}/.cwd`, ROOT);
    await Deno.writeTextFile(
      `${jobDir}/.deno_dir`,
      Deno.env.get("DENO_DIR") ??
        `${Deno.env.get("HOME") ?? "/root"}/.cache/deno`,
    );
    await Deno.remove(`${jobDir}/.status`).catch(() => {});
    for (const [name, content] of Object.entries(options.files ?? {})) {
      if (typeof content === "string") {
        await Deno.writeTextFile(`${jobDir}/${name}`, content);
      } else await Deno.writeFile(`${jobDir}/${name}`, content);
    }
    const disks = (options.disks ?? []).flatMap((path, i) => [
      "-drive",
      `file=${path},format=raw,if=none,id=disk${i},cache=writeback`,
      "-device",
      `virtio-blk-pci,drive=disk${i}`,
    ]);
    const echo = options.echo || Deno.env.get("HOMEWIRE_GUEST_LOG") === "1";
    const child = new Deno.Command(QEMU.amd64, {
      args: [
        "-accel",
        "tcg",
        "-cpu",
        "max",
        "-smp",
        "2",
        "-m",
        String(options.memoryMib ?? 1536),
        "-nodefaults",
        "-no-reboot",
        "-display",
        "none",
        "-serial",
        "stdio",
        "-kernel",
        options.kernel.image,
        "-initrd",
        initramfs,
        "-append",
        "console=ttyS0 quiet loglevel=3 panic=-1 rdinit=/init",
        "-virtfs",
        "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap",
        "-virtfs",
        `local,path=${jobDir},mount_tag=job,security_model=none,multidevs=remap`,
        ...disks,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const lines: string[] = [];
    const steps: string[] = [];
    let killed = false;
    let status: number | undefined;
    const pump = async (stream: ReadableStream<Uint8Array>) => {
      let rest = "";
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        const parts = (rest + chunk).split("\n");
        rest = parts.pop() ?? "";
        for (const raw of parts) {
          const line = raw.replace(/\r$/, "");
          lines.push(line);
          if (echo) console.error(`guest| ${line}`);
          options.onLine?.(line);
          const step = STEP.exec(line)?.[1];
          if (step) steps.push(step);
          const exit = EXIT.exec(line)?.[1];
          if (exit !== undefined) status = Number(exit);
          if (!killed && options.killWhen?.(line)) {
            killed = true;
            child.kill("SIGKILL");
          }
        }
      }
      if (rest) lines.push(rest);
    };
    const pumped = Promise.all([pump(child.stdout), pump(child.stderr)]);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), options.timeoutMs);
    });
    const ended = await Promise.race([child.status, timedOut]);
    clearTimeout(timer);
    if (ended === "timeout") {
      child.kill("SIGKILL");
      await child.status;
      await pumped;
      throw new Error(
        `The guest hung in step "${
          steps.at(-1) ?? "boot"
        }" (killed after ${options.timeoutMs} ms); its console:\n${
          lines.slice(-60).join("\n")
        }`,
      );
    }
    await pumped;
    if (status === undefined && !killed) {
      throw new Error(
        `The guest ended without the script's exit status, in step "${
          steps.at(-1) ?? "boot"
        }"; its console:\n${lines.slice(-60).join("\n")}`,
      );
    }
    return {
      status,
      lines,
      steps,
      jobDir,
      wallMs: Date.now() - started,
      killed,
    };
  } finally {
    await Deno.remove(bootDir, { recursive: true }).catch(() => {});
  }
}

/**
 * Bash functions every kernel suite's script starts with:
 * - `step NAME`: prints the step marker;
 * - `kmod NAME [PARAM...]`: `modprobe` from the laid kernel's modules;
 * - `homewire NAME [VAR=VALUE...] -- ARGS...`: runs `main.ts ARGS` with only those
 *   variables (plus PATH and HOME), its output in `/tmp/job/NAME.out` and its exit
 *   status in `/tmp/job/NAME.status` (`homewire_prefix="setpriv ..." homewire ...`
 *   runs it under that command);
 * - `start_store`: starts tests/_guest_store.ts on 127.0.0.1:8086 in the background;
 *   `wait_store` waits until it listens;
 * - `spawn COMMAND...`: runs it in the background; `wait_batch` waits for those.
 *
 * `main.ts` runs from an empty folder of the guest's tmpfs, `/tmp/work/NAME` (so `./data`
 * is writable), and
 * Deno's cache is an overlay whose writes stay in the guest.
 */
export function guestPrelude(kernel: GuestKernel): string {
  return `set -u
export KERNEL_DIR='${kernel.dir}'
REPO="$PWD"
step() { echo "@@step $1"; }
kmod() { modprobe -d "$KERNEL_DIR" "$@"; }
# The Deno cache stays read-only; an overlay on the guest's tmpfs takes what Deno
# writes (its SQLite caches cannot even be read on a read-only folder).
kmod overlay
mkdir -p /tmp/deno/upper /tmp/deno/work /tmp/deno/dir
mount -t overlay overlay -o "lowerdir=$DENO_DIR,upperdir=/tmp/deno/upper,workdir=/tmp/deno/work" /tmp/deno/dir &&
  export DENO_DIR=/tmp/deno/dir
homewire() {
  local name="$1"; shift
  local vars=()
  while [ "$1" != "--" ]; do vars+=("$1"); shift; done
  shift
  local started=$SECONDS
  mkdir -p "/tmp/work/$name"
  # shellcheck disable=SC2086 # homewire_prefix is a command line, split on purpose
  (cd "/tmp/work/$name" && \${homewire_prefix:-} env -i PATH="$PATH" HOME="$HOME" DENO_DIR="$DENO_DIR" NO_COLOR=1 "\${vars[@]}" \\
    deno run -A --unstable-cron --cached-only --config="$REPO/deno.json" "$REPO/main.ts" "$@" \\
    >"/tmp/job/$name.out" 2>&1 </dev/null)
  local status=$?
  echo "$status" >"/tmp/job/$name.status"
  echo "@@ran $name: exit $status in $((SECONDS - started)) s"
}
STORE_PID=""
start_store() {
  deno run -A --cached-only tests/_guest_store.ts /tmp/job 8086 >/tmp/store.log 2>&1 &
  STORE_PID=$!
}
# \`spawn COMMAND...\` runs it in the background; \`wait_batch\` waits for what was spawned.
BATCH=()
spawn() { "$@" & BATCH+=("$!"); }
wait_batch() {
  [ "\${#BATCH[@]}" -eq 0 ] || wait "\${BATCH[@]}"
  BATCH=()
}
wait_store() {
  for _ in $(seq 1 1200); do
    grep -q "store listening" /tmp/store.log 2>/dev/null && return 0
    sleep 0.1
  done
  echo "the store did not start:"; cat /tmp/store.log; return 1
}
`;
}

/** What a `homewire` run of the guest script left: its exit status and output. */
export async function guestResult(
  jobDir: string,
  name: string,
): Promise<{ status: number | undefined; output: string }> {
  const read = (file: string) =>
    Deno.readTextFile(`${jobDir}/${file}`).catch(() => undefined);
  const status = await read(`${name}.status`);
  return {
    status: status === undefined ? undefined : Number(status.trim()),
    output: (await read(`${name}.out`)) ?? `(no output of ${name})`,
  };
}

/** The line-protocol lines the guest's store received for `database`. */
export async function storedLines(
  jobDir: string,
  database: string,
): Promise<string[]> {
  const text = await Deno.readTextFile(`${jobDir}/${database}.lp`).catch(
    () => "",
  );
  return text.split("\n").filter((line) => line !== "");
}
