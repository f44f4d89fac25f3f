/**
 * Waiting for the Bluetooth adapter to be ready, and telling why it is not.
 *
 * noble's states come in bursts: without an adapter, its HCI binding reports
 * `unsupported` then `poweredOff` at once, and `unsupported` again about a second
 * later. So `poweredOff` is only believed once it has lasted a while; `unsupported`
 * and `unauthorized` are final at once.
 *
 * @module
 */

/** The adapter states noble reports. */
export type AdapterState =
  | "unknown"
  | "resetting"
  | "unsupported"
  | "unauthorized"
  | "poweredOff"
  | "poweredOn";

/** What is wrong, per state that will not turn into `poweredOn` by waiting. */
const UNAVAILABLE: Partial<Record<AdapterState, string>> = {
  unsupported: "no Bluetooth LE adapter found",
  unauthorized:
    "permission denied: run as root or give deno cap_net_raw,cap_net_admin",
  poweredOff: "the adapter is powered off (rfkill unblock bluetooth)",
};

/** How long `poweredOff` must last before it is taken as the adapter's state. */
export const POWERED_OFF_SETTLE_MS = 1500;

/** The part of noble {@linkcode waitForPoweredOn} listens to. */
export interface StateSource {
  on(event: "stateChange", listener: (state: AdapterState) => void): unknown;
  removeListener(
    event: "stateChange",
    listener: (state: AdapterState) => void,
  ): unknown;
}

/** The error for an adapter that is not usable. */
export function unavailable(state: AdapterState, detail?: string): Error {
  return new Error(
    `Bluetooth is unavailable: ${
      detail ?? UNAVAILABLE[state] ?? "the adapter is not ready"
    } (adapter state "${state}")`,
  );
}

/** A wait for `poweredOn` that can be given up early. */
export interface AdapterWait {
  /** Resolves on `poweredOn`; rejects with {@linkcode unavailable} otherwise. */
  readonly ready: Promise<void>;
  /** Ends the wait now, rejecting with `error`. */
  cancel(error: Error): void;
}

/**
 * Waits until `source` reports `poweredOn`, starting from `current` (the state read
 * when the wait begins). `unsupported` and `unauthorized` end the wait at once;
 * `poweredOff` only after it lasted `offSettleMs`.
 *
 * @example
 * ```ts
 * import { EventEmitter } from "node:events";
 *
 * const adapter = new EventEmitter(); // what noble is: it emits "stateChange"
 * const waiting = waitForPoweredOn(adapter, "poweredOff");
 * adapter.emit("stateChange", "poweredOn");
 * await waiting.ready;
 * ```
 */
export function waitForPoweredOn(
  source: StateSource,
  current: AdapterState,
  { offSettleMs = POWERED_OFF_SETTLE_MS }: { offSettleMs?: number } = {},
): AdapterWait {
  let cancel: (error: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    let offTimer: ReturnType<typeof setTimeout> | undefined;
    const settle = (state: AdapterState) => {
      clearTimeout(offTimer);
      offTimer = undefined;
      if (state === "poweredOn") done();
      else if (state === "poweredOff") {
        offTimer = setTimeout(() => done(unavailable(state)), offSettleMs);
      } else if (UNAVAILABLE[state]) done(unavailable(state));
    };
    const done = (error?: Error) => {
      clearTimeout(offTimer);
      source.removeListener("stateChange", settle);
      cancel = () => {};
      if (error) reject(error);
      else resolve();
    };
    cancel = done;
    source.on("stateChange", settle);
    settle(current);
  });
  return { ready, cancel: (error) => cancel(error) };
}

/**
 * Whether Linux lists no Bluetooth adapter: `dir` (normally `/sys/class/bluetooth`)
 * is missing or empty while its parent (sysfs) is there. `false` when that cannot be
 * told (another system, sysfs not mounted), so that noble is asked instead.
 */
export async function linuxHasNoAdapter(dir: string): Promise<boolean> {
  if (Deno.build.os !== "linux") return false;
  const parent = dir.replace(/\/+[^/]+\/*$/, "") || "/";
  try {
    if (!(await Deno.stat(parent)).isDirectory) return false;
  } catch {
    return false;
  }
  try {
    for await (const _ of Deno.readDir(dir)) return false;
    return true;
  } catch (error) {
    return error instanceof Deno.errors.NotFound;
  }
}
