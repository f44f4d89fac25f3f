/**
 * The {@linkcode Scanner} on `npm:@stoprocent/noble` (Node-API, prebuilt binaries for
 * Linux x64, arm64 and armv7/armv6). Loaded lazily, so roles that never scan never
 * load its native code.
 *
 * @module
 */
import type { AdapterState, Noble, Peripheral } from "@stoprocent/noble";
import process from "node:process";
import { errorText, type Log } from "../../lib/log.ts";
import {
  type AdapterWait,
  linuxHasNoAdapter,
  unavailable,
  waitForPoweredOn,
} from "./_adapter_state.ts";
import { capabilityProblem } from "./_capabilities.ts";
import type { Advertisement, Scanner } from "./scanner.ts";

/** How long a scan stop may take before the scanner carries on regardless. */
const STOP_WAIT_MS = 1000;

/** Options of {@linkcode createNobleScanner}. */
export interface NobleScannerOptions {
  /** Receives the library's own messages at DEBUG. */
  log: Log;
  /**
   * Where Linux lists its Bluetooth adapters; when it lists none, `start` fails at
   * once with "no Bluetooth adapter found". @default "/sys/class/bluetooth"
   */
  adaptersDir?: string;
  /** How long `poweredOff` must last before `start` believes it. @default 1500 */
  offSettleMs?: number;
}

/** One Bluetooth stack for the whole process; see {@linkcode createNobleBluetooth}. */
export interface NobleBluetooth {
  /**
   * Returns a scanner on the process's one noble instance (loaded on the first call).
   * One scanner at a time: close it before asking for the next.
   *
   * @throws (rejects) when the library or its native binding cannot load
   */
  scanner(): Promise<Scanner>;
}

/**
 * The process's Bluetooth: one `npm:@stoprocent/noble` instance, so one HCI socket,
 * opened on the first scan and never closed while the process runs; each pass's
 * scanner starts and stops scanning on it.
 *
 * Why never closed: `@stoprocent/bluetooth-hci-socket` 2.3.0 closes its socket when
 * its reading thread stops (`noble.stop()`) without forgetting the descriptor, and
 * closes the same number again from its finalizer, or reuses it on the next start;
 * by then the number may belong to a store connection or a file opened in between,
 * which is then closed under its user. One socket for the life of the process, closed
 * by the process's exit, has no second close. Make one per role start and hand its
 * `scanner` to the readers as their `createScanner`.
 *
 * @param options the logger for the library's messages, and test seams
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 *
 * const log = createLog("ble");
 * const bluetooth = createNobleBluetooth({ log });
 * const scanner = await bluetooth.scanner();
 * await scanner.start((ad) => log.debug(`Heard ${ad.address}`));
 * await scanner.close();
 * ```
 */
export function createNobleBluetooth(
  options: NobleScannerOptions,
): NobleBluetooth {
  let loading: Promise<Noble> | undefined;
  const load = async () => {
    // noble's warnings go to the log from now on: the process keeps noble.
    const restoreConsole = routeLibraryOutput(options.log);
    try {
      const library = await import("@stoprocent/noble");
      return library.withBindings("default");
    } catch (error) {
      restoreConsole();
      loading = undefined;
      throw new Error(
        `Bluetooth is unavailable: cannot load @stoprocent/noble: ${
          errorText(error)
        }`,
        { cause: error },
      );
    }
  };
  return {
    async scanner() {
      loading ??= load();
      return nobleScanner(await loading, options);
    },
  };
}

/**
 * Loads noble and returns a scanner on the system's default adapter (HCI on Linux),
 * on a noble instance of its own: for a process that scans once (a long-running one
 * uses {@linkcode createNobleBluetooth}). Its HCI socket stays open until the process
 * ends.
 *
 * @param options the logger for the library's messages, and test seams
 * @returns a scanner that must be closed to stop its scan
 * @throws (rejects) when the library or its native binding cannot load
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 *
 * const log = createLog("ble");
 * const scanner = await createNobleScanner({ log });
 * await scanner.start((ad) => log.debug(`Heard ${ad.address}`));
 * await scanner.close();
 * ```
 */
export function createNobleScanner(
  options: NobleScannerOptions,
): Promise<Scanner> {
  return createNobleBluetooth(options).scanner();
}

/** A scanner on `noble`: its scan and its listeners, never noble's socket. */
function nobleScanner(noble: Noble, options: NobleScannerOptions): Scanner {
  const { log, adaptersDir = "/sys/class/bluetooth", offSettleMs } = options;
  let onAdvertisement: ((ad: Advertisement) => void) | undefined;
  let scanning = false;
  let closed = false;
  const waiting = new Set<AdapterWait>();
  const onDiscover = (peripheral: Peripheral) => {
    const data = peripheral.advertisement?.manufacturerData;
    const services = peripheral.advertisement?.serviceData ?? [];
    onAdvertisement?.({
      address: peripheral.address || peripheral.id,
      manufacturerData: data ? new Uint8Array(data) : undefined,
      serviceData: services.map((entry) => ({
        uuid: entry.uuid,
        data: new Uint8Array(entry.data),
      })),
    });
  };
  noble.on("discover", onDiscover);

  const poweredOn = async () => {
    if (await linuxHasNoAdapter(adaptersDir)) {
      // What noble itself settles on about a second later, said plainly and at once.
      throw unavailable(
        "unsupported",
        `no Bluetooth adapter found in ${adaptersDir}`,
      );
    }
    const permission = await capabilityProblem();
    if (permission) throw permission;
    if (closed) throw new Error("The Bluetooth scanner is closed");
    // Started before listening: a first listener would start them a tick later.
    const wait = waitForPoweredOn(noble, startBindings(noble), { offSettleMs });
    waiting.add(wait);
    try {
      await wait.ready;
    } finally {
      waiting.delete(wait);
    }
  };

  const stop = async () => {
    if (!scanning) return;
    scanning = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      noble.stopScanningAsync().catch(() => {}),
      new Promise((resolve) => timer = setTimeout(resolve, STOP_WAIT_MS)),
    ]);
    clearTimeout(timer);
  };
  return {
    async start(listener) {
      if (closed) throw new Error("The Bluetooth scanner is closed");
      onAdvertisement = listener;
      await poweredOn();
      // Duplicates allowed: a thermometer repeats its advertisement with new values.
      await noble.startScanningAsync([], true);
      scanning = true;
    },
    stop,
    async close() {
      if (closed) return;
      closed = true;
      onAdvertisement = undefined;
      for (const wait of waiting) {
        wait.cancel(new Error("The Bluetooth scanner is closed"));
      }
      noble.removeListener("discover", onDiscover);
      try {
        await stop();
      } catch (error) {
        log.debug(`Stopping the Bluetooth scan failed: ${errorText(error)}`);
      }
    },
  };
}

/**
 * Reads the adapter state, which starts noble's bindings on first use. The HCI binding
 * then adds a SIGINT handler that calls `process.exit(1)` when it believes it is the
 * last one; it cannot see `main.ts`'s own signal listeners, so it would cut a clean
 * stop short. Handlers added during start-up are removed again.
 */
function startBindings(noble: Noble): AdapterState {
  const before = new Set(process.listeners("SIGINT"));
  const state = noble.state;
  for (const listener of process.listeners("SIGINT")) {
    if (!before.has(listener)) {
      process.removeListener("SIGINT", listener as () => void);
    }
  }
  return state;
}

/**
 * noble's HCI binding prints its warnings with `console.log`, which would mix them into
 * the reader's standard output (one JSON line other programs parse). Once noble is
 * loaded, lines starting with "noble" (and their indented continuation lines) go to
 * the log at DEBUG instead; anything else is printed as before.
 */
function routeLibraryOutput(log: Log): () => void {
  const original = console.log;
  const replacement = (...args: unknown[]) => {
    const text = args.map(String).join(" ");
    if (/^(noble\b|\s)/.test(text)) log.debug(`Bluetooth: ${text.trim()}`);
    else original(...args);
  };
  console.log = replacement;
  return () => {
    if (console.log === replacement) console.log = original;
  };
}
