/**
 * A real Linux kernel for the kernel suites: Debian's kernel (unpacked in
 * `.cache/kernel/<arch>/` by `scripts/install_deps.sh`) booted under
 * `qemu-system-<arch>` with TCG, a busybox-static initramfs that mounts this machine's
 * root read-only over 9p (with a tmpfs on `/tmp`), loopback up, and a shell script run
 * in a chroot into that root: the host's own `deno`, `node_modules`, Deno cache (read
 * only, `--cached-only`), `i2cset`, `btmgmt`... Nothing is downloaded in the guest; it
 * has no network but `lo`. An arm64 guest (`qemu-system-aarch64 -machine virt`) runs the
 * script in the arm64 userland laid with its kernel instead, with the repository, the
 * Deno cache and the arm64 Deno (`deno` on its PATH) bound in at their host paths.
 *
 * The script prints `@@step <name>` lines; a guest that outlives its time is killed
 * and the error names the step it hung in. The script's folder is shared read-write at
 * `/tmp/job` (its files are the script's input and output). tests/_test_guest_script.ts
 * gives the scripts' common start (`guestPrelude`) and reads what they leave;
 * tests/_test_guest_initramfs.ts builds the initramfs.
 *
 * @module
 */
import {
  buildInitramfs,
  type GuestArch,
  type GuestKernel,
} from "./_test_guest_initramfs.ts";

export type { GuestArch, GuestKernel };

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

const QEMU: Record<GuestArch, string> = {
  amd64: "qemu-system-x86_64",
  arm64: "qemu-system-aarch64",
};

/**
 * The arm64 Deno of our Deno version, as install_deps.sh lays it (the one
 * tests/aarch64_test.ts runs under user-mode qemu).
 */
export const ARM64_DENO =
  `${ROOT}/.cache/aarch64/deno-${Deno.version.deno}/deno`;

/**
 * What differs between the architectures' boots: the machine, the console, and the
 * kernel command line's own additions.
 */
const MACHINE: Record<GuestArch, { args: string[]; append: string }> = {
  amd64: {
    args: ["-cpu", "max"],
    // no_timer_check: on a loaded machine the emulated timer can seem too slow at
    // boot, and the kernel panics ("IO-APIC + timer doesn't work!") without it.
    append: "console=ttyS0 no_timer_check",
  },
  arm64: {
    // A Raspberry Pi 4's core.
    args: ["-machine", "virt", "-cpu", "cortex-a72"],
    append: "console=ttyAMA0",
  },
};

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
    // The arm64 userland, laid last.
    if (arch !== "amd64") Deno.statSync(`${dir}/.homewire-root`);
  } catch {
    return undefined;
  }
  return { arch, release, dir, image };
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
    missing.push(
      arch === "amd64"
        ? `Debian's ${arch} kernel in .cache/kernel/${arch}/`
        : `Debian's ${arch} kernel and userland in .cache/kernel/${arch}/`,
    );
  }
  if (arch === "arm64") {
    try {
      Deno.statSync(ARM64_DENO);
    } catch {
      missing.push(`the arm64 Deno in ${ARM64_DENO}`);
    }
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

/** The host's Deno cache, which the guest reads. */
function denoDir(): string {
  return Deno.env.get("DENO_DIR") ??
    `${Deno.env.get("HOME") ?? "/root"}/.cache/deno`;
}

const STEP = /^@@step (.+)$/;
const EXIT = /^@@exit (\d+)$/;

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
    await Deno.writeTextFile(`${jobDir}/.deno_dir`, denoDir());
    if (options.kernel.arch !== "amd64") {
      // The host folders the arm64 guest binds into its root, at their own paths.
      const denoBin = await Deno.realPath(ARM64_DENO);
      const binds = new Set([
        await Deno.realPath(ROOT),
        await Deno.realPath(denoDir()),
        denoBin.replace(/\/[^/]+$/, ""),
      ]);
      await Deno.writeTextFile(
        `${jobDir}/.binds`,
        [...binds].join("\n") + "\n",
      );
      await Deno.writeTextFile(`${jobDir}/.deno_bin`, denoBin);
    }
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
    const machine = MACHINE[options.kernel.arch];
    const child = new Deno.Command(QEMU[options.kernel.arch], {
      args: [
        "-accel",
        "tcg",
        ...machine.args,
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
        `${machine.append} quiet loglevel=3 panic=-1 rdinit=/init`,
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
