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

/**
 * Loads noble and returns a scanner on the system's default adapter (HCI on Linux).
 *
 * @param options the logger for the library's messages, and test seams
 * @returns a scanner that must be closed to release the adapter
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
export async function createNobleScanner(
  options: NobleScannerOptions,
): Promise<Scanner> {
  const { log, adaptersDir = "/sys/class/bluetooth", offSettleMs } = options;
  let noble: Noble;
  const restoreConsole = routeLibraryOutput(log);
  try {
    const library = await import("@stoprocent/noble");
    noble = library.withBindings("default");
  } catch (error) {
    restoreConsole();
    throw new Error(
      `Bluetooth is unavailable: cannot load @stoprocent/noble: ${
        errorText(error)
      }`,
      { cause: error },
    );
  }

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

  return {
    async start(listener) {
      if (closed) throw new Error("The Bluetooth scanner is closed");
      onAdvertisement = listener;
      await poweredOn();
      // Duplicates allowed: a thermometer repeats its advertisement with new values.
      await noble.startScanningAsync([], true);
      scanning = true;
    },
    async stop() {
      if (!scanning) return;
      scanning = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        noble.stopScanningAsync().catch(() => {}),
        new Promise((resolve) => timer = setTimeout(resolve, STOP_WAIT_MS)),
      ]);
      clearTimeout(timer);
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      onAdvertisement = undefined;
      for (const wait of waiting) {
        wait.cancel(new Error("The Bluetooth scanner is closed"));
      }
      noble.removeListener("discover", onDiscover);
      try {
        noble.stop();
      } catch (error) {
        log.debug(`Stopping Bluetooth failed: ${errorText(error)}`);
      } finally {
        restoreConsole();
      }
      return Promise.resolve();
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
 * the reader's standard output (one JSON line other programs parse). While a scanner
 * is open, lines starting with "noble" (and their indented continuation lines) go to
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
