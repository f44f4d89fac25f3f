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
import type { Advertisement, Scanner } from "./scanner.ts";

/** Adapter states that will not turn into `poweredOn` by waiting. */
const UNAVAILABLE: Partial<Record<AdapterState, string>> = {
  unsupported: "no Bluetooth LE adapter found",
  unauthorized:
    "permission denied: run as root or give deno cap_net_raw,cap_net_admin",
  poweredOff: "the adapter is powered off (rfkill unblock bluetooth)",
};

/** How long a scan stop may take before the scanner carries on regardless. */
const STOP_WAIT_MS = 1000;

/**
 * Loads noble and returns a scanner on the system's default adapter (HCI on Linux).
 *
 * @throws (rejects) when the library or its native binding cannot load
 */
export async function createNobleScanner(
  { log }: { log: Log },
): Promise<Scanner> {
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
  const waiting = new Set<(error: Error) => void>();
  const onDiscover = (peripheral: Peripheral) => {
    const data = peripheral.advertisement?.manufacturerData;
    onAdvertisement?.({
      address: peripheral.address || peripheral.id,
      manufacturerData: data ? new Uint8Array(data) : undefined,
    });
  };
  noble.on("discover", onDiscover);

  const poweredOn = () =>
    new Promise<void>((resolve, reject) => {
      const settle = (state: AdapterState) => {
        if (state === "poweredOn") done();
        else if (UNAVAILABLE[state]) done(unavailable(state));
      };
      const done = (error?: Error) => {
        noble.removeListener("stateChange", settle);
        waiting.delete(done);
        if (error) reject(error);
        else resolve();
      };
      waiting.add(done);
      // Started before listening: a first listener would start them a tick later.
      const state = startBindings(noble);
      noble.on("stateChange", settle);
      settle(state);
    });

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
      for (const done of waiting) {
        done(new Error("The Bluetooth scanner is closed"));
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

function unavailable(state: AdapterState): Error {
  return new Error(
    `Bluetooth is unavailable: ${
      UNAVAILABLE[state]
    } (adapter state "${state}")`,
  );
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
