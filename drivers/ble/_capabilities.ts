/**
 * The capabilities a Bluetooth scan needs on Linux, read from `/proc/self/status`
 * before noble is asked: without them noble only reports the adapter as
 * "unsupported" (its raw HCI socket cannot be made), or waits until the time-out.
 *
 * @module
 */

/** The capabilities noble's raw HCI socket needs, with their bit numbers. */
const NEEDED = [["CAP_NET_RAW", 13], ["CAP_NET_ADMIN", 12]] as const;

/**
 * The capabilities of {@linkcode NEEDED} missing from the `CapEff` line of a
 * `/proc/<pid>/status` text; empty when all are there or the line is absent.
 *
 * @example
 * ```ts
 * missingCapabilities("CapEff:\t0000000000000000\n"); // ["CAP_NET_RAW", "CAP_NET_ADMIN"]
 * ```
 */
export function missingCapabilities(status: string): string[] {
  const effective = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  if (effective === undefined) return [];
  const bits = BigInt(`0x${effective}`);
  return NEEDED.filter(([, bit]) => ((bits >> BigInt(bit)) & 1n) === 0n)
    .map(([name]) => name);
}

/**
 * The error for a process without the capabilities of a scan, saying how to grant
 * them; `undefined` when it has them (or when that cannot be told).
 */
export async function capabilityProblem(
  statusPath = "/proc/self/status",
): Promise<Error | undefined> {
  if (Deno.build.os !== "linux") return undefined;
  let status: string;
  try {
    status = await Deno.readTextFile(statusPath);
  } catch {
    return undefined;
  }
  const missing = missingCapabilities(status);
  if (missing.length === 0) return undefined;
  return new Error(
    `Bluetooth is unavailable: permission denied: this process lacks ${
      missing.join(" and ")
    }, which a Bluetooth scan needs: run it as root, give its systemd unit AmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN, or run sudo setcap cap_net_raw,cap_net_admin+eip "$(command -v deno)"`,
  );
}
