/**
 * What the kernel suites' guest scripts start with, and reading what they leave in the
 * job folder. Used with tests/_test_qemu_guest.ts.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { GuestKernel, GuestRun } from "./_test_qemu_guest.ts";

/**
 * Bash functions every kernel suite's script starts with:
 * - `step NAME`: prints the step marker;
 * - `kmod NAME [PARAM...]`: `modprobe` from the laid kernel's modules;
 * - `homewire NAME [VAR=VALUE...] -- ARGS...`: runs `main.ts ARGS` with only those
 *   variables (plus PATH and HOME), its output in `/tmp/job/NAME.out` and its exit
 *   status in `/tmp/job/NAME.status` (`homewire_prefix="setpriv ..." homewire ...`
 *   runs it under that command);
 * - `start_store`: starts tests/_test_guest_store.ts on 127.0.0.1:8086 in the background;
 *   `wait_store` waits until it listens;
 * - `spawn COMMAND...`: runs it in the background; `wait_batch` waits for those.
 *
 * `main.ts` runs from an empty folder of the guest's tmpfs, `/tmp/work/NAME` (so `./data`
 * is writable), and
 * Deno's cache is an overlay whose writes stay in the guest.
 */
export function guestPrelude(kernel: GuestKernel): string {
  // The arm64 guest's root is the kernel's folder: its modules are where modprobe looks.
  const kmod = kernel.arch === "amd64"
    ? `modprobe -d "$KERNEL_DIR"`
    : "modprobe";
  return `set -u
export KERNEL_DIR='${kernel.dir}'
REPO="$PWD"
step() { echo "@@step $1"; }
kmod() { ${kmod} "$@"; }
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
  deno run -A --cached-only tests/_test_guest_store.ts /tmp/job 8086 >/tmp/store.log 2>&1 &
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

/** The checks of one guest run, from {@linkcode checkGuestRun}. */
export interface GuestChecks {
  /** The guest's console, for assertion messages. */
  readonly console: string;
  /** The run's job folder. */
  readonly job: string;
  /** Runs a test step; a failed step keeps the job folder. */
  step(name: string, fn: () => void | Promise<void>): Promise<void>;
  /** Removes the job folder, or keeps it and says where when a step failed. */
  finish(): Promise<void>;
}

/**
 * Asserts that the guest's script ran to its `done` step and exited 0, and returns
 * the steps' runner: the job folder is kept when a check fails, for a look at what
 * the guest left.
 */
export function checkGuestRun(
  t: Deno.TestContext,
  run: GuestRun,
): GuestChecks {
  const guestConsole = run.lines.join("\n");
  assert.equal(run.status, 0, guestConsole);
  assert.equal(run.steps.at(-1), "done", guestConsole);
  let failed = false;
  return {
    console: guestConsole,
    job: run.jobDir,
    async step(name, fn) {
      if (!(await t.step(name, fn))) failed = true;
    },
    async finish() {
      if (failed) console.log(`The guest's job folder is kept: ${run.jobDir}`);
      else await Deno.remove(run.jobDir, { recursive: true });
    },
  };
}
