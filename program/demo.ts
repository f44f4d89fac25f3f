/**
 * The zero-configuration demo set that `deno task start` runs when no role is named.
 *
 * @module
 */
import { reachableHost } from "../lib/serve.ts";
import type { Env } from "../lib/settings.ts";

/** Roles of the demo set, in start order. */
export const DEMO_ROLES = ["messages", "data-api", "table"] as const;

/** The demo set's environment, and the token generated for it if any. */
export interface DemoEnv {
  /** The environment with the demo's defaults filled in. */
  env: Env;
  /** The data-API token generated because `DATA_API_TOKEN` was unset. */
  generatedToken?: string;
}

/** Dependencies of {@linkcode demoEnv}. */
export interface DemoEnvOptions {
  /**
   * Returns, for each address, a port free there at this moment (distinct ports), or
   * `undefined` where nothing can listen (the role then reports that itself).
   * @default {@linkcode freePortsOn}
   */
  freePorts?: (hostnames: readonly string[]) => (number | undefined)[];
}

/**
 * Fills in what the demo set needs and the user has not set: a random
 * `DATA_API_TOKEN`, `API_URL`/`API_KEY` pointing the table at the local data API,
 * and `MESSAGES_ALLOW_ORIGIN` naming the table page's own origin, so a script on
 * that page may use the messages role.
 *
 * A `TABLE_PORT` of 0, or a `DATA_API_PORT` of 0 when the table is pointed at it, is
 * replaced by a port free now: the roles do not report the port they bound, and
 * `API_URL` and {@linkcode demoBanner} must name the real one.
 *
 * @example
 * ```ts
 * const { env, generatedToken } = demoEnv({});
 * env.API_URL; // "http://127.0.0.1:8003/data"
 * ```
 */
export function demoEnv(
  env: Env,
  { freePorts = freePortsOn }: DemoEnvOptions = {},
): DemoEnv {
  const result: Record<string, string | undefined> = { ...env };
  let generatedToken: string | undefined;
  if (!env.DATA_API_TOKEN?.trim()) {
    generatedToken = randomToken();
    result.DATA_API_TOKEN = generatedToken;
  }
  const pointAtDataApi = !env.API_URL?.trim();
  const roles = pointAtDataApi ? ["TABLE", "DATA_API"] : ["TABLE"];
  Object.assign(result, pinnedPorts(env, roles, freePorts));
  if (pointAtDataApi) {
    const port = result.DATA_API_PORT?.trim() || "8003";
    result.API_URL = `http://${localHost(env.DATA_API_HOST)}:${port}/data`;
    result.API_KEY = result.DATA_API_TOKEN;
  }
  if (!env.MESSAGES_ALLOW_ORIGIN?.trim()) {
    const port = result.TABLE_PORT?.trim() || "3838";
    result.MESSAGES_ALLOW_ORIGIN = `http://${
      localHost(env.TABLE_HOST)
    }:${port}`;
  }
  return { env: result, generatedToken };
}

/**
 * Ports free at this moment, one for each address (the system's choice; all are held
 * until every one is chosen, so they differ), `undefined` where nothing can listen.
 * Another program may take one before its role binds it: that role then fails to
 * start, naming its port setting.
 *
 * @example
 * ```ts
 * freePortsOn(["0.0.0.0", "::1"]); // [41873, 39211]
 * ```
 */
export function freePortsOn(
  hostnames: readonly string[],
): (number | undefined)[] {
  const listeners: (Deno.Listener | undefined)[] = [];
  try {
    for (const hostname of hostnames) {
      try {
        listeners.push(Deno.listen({ hostname, port: 0 }));
      } catch {
        listeners.push(undefined);
      }
    }
    return listeners.map((l) => (l?.addr as Deno.NetAddr | undefined)?.port);
  } finally {
    for (const listener of listeners) listener?.close();
  }
}

/**
 * `<ROLE>_PORT` settings of `roles` that ask for any free port (0), each set to a
 * port free now on its role's `<ROLE>_HOST`.
 */
function pinnedPorts(
  env: Env,
  roles: readonly string[],
  freePorts: (hostnames: readonly string[]) => (number | undefined)[],
): Record<string, string> {
  const anyPort = roles.filter((role) =>
    /^[+-]?0+$/.test(env[`${role}_PORT`]?.trim() ?? "")
  );
  if (anyPort.length === 0) return {};
  const ports = freePorts(
    anyPort.map((role) => listenAddress(env[`${role}_HOST`])),
  );
  const pinned: Record<string, string> = {};
  anyPort.forEach((role, i) => {
    const port = ports[i];
    if (port !== undefined) pinned[`${role}_PORT`] = String(port);
  });
  return pinned;
}

/**
 * What the demo set prints once it runs: the page to open and how to stop, and the
 * generated data-API token (a new one at each start) when there is one.
 *
 * @example
 * ```ts
 * demoBanner({}, "abc");
 * // ["Demo running: open http://127.0.0.1:3838/ (Ctrl-C to stop)",
 * //  "Demo data-API token (generated because DATA_API_TOKEN is unset): abc"]
 * ```
 */
export function demoBanner(env: Env, generatedToken?: string): string[] {
  const port = env.TABLE_PORT?.trim() || "3838";
  const lines = [
    `Demo running: open http://${
      localHost(env.TABLE_HOST)
    }:${port}/ (Ctrl-C to stop)`,
  ];
  if (generatedToken) {
    lines.push(
      `Demo data-API token (generated because DATA_API_TOKEN is unset): ${generatedToken}`,
    );
  }
  return lines;
}

/** Where a role of the demo is reached, from its `<ROLE>_HOST` (unset: all addresses). */
function localHost(listenHost: string | undefined): string {
  return reachableHost(listenAddress(listenHost));
}

/** The address a role of the demo listens on, from its `<ROLE>_HOST`. */
function listenAddress(listenHost: string | undefined): string {
  return listenHost?.trim().replace(/^\[(.*)\]$/, "$1") || "0.0.0.0";
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
