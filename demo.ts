/**
 * The zero-configuration demo set that `deno task start` runs when no role is named.
 *
 * @module
 */
import { reachableHost } from "./lib/serve.ts";
import type { Env } from "./lib/settings.ts";

/** Roles of the demo set, in start order. */
export const DEMO_ROLES = ["messages", "data-api", "table"] as const;

/** The demo set's environment, and the token generated for it if any. */
export interface DemoEnv {
  /** The environment with the demo's defaults filled in. */
  env: Env;
  /** The data-API token generated because `DATA_API_TOKEN` was unset. */
  generatedToken?: string;
}

/**
 * Fills in what the demo set needs and the user has not set: a random
 * `DATA_API_TOKEN`, and `API_URL`/`API_KEY` pointing the table at the local data API.
 *
 * @example
 * ```ts
 * const { env, generatedToken } = demoEnv({});
 * env.API_URL; // "http://127.0.0.1:8003/data"
 * ```
 */
export function demoEnv(env: Env): DemoEnv {
  const result: Record<string, string | undefined> = { ...env };
  let generatedToken: string | undefined;
  if (!env.DATA_API_TOKEN?.trim()) {
    generatedToken = randomToken();
    result.DATA_API_TOKEN = generatedToken;
  }
  if (!env.API_URL?.trim()) {
    const port = env.DATA_API_PORT?.trim() || "8003";
    result.API_URL = `http://${localHost(env.DATA_API_HOST)}:${port}/data`;
    result.API_KEY = result.DATA_API_TOKEN;
  }
  return { env: result, generatedToken };
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
  const host = listenHost?.trim().replace(/^\[(.*)\]$/, "$1") || "0.0.0.0";
  return reachableHost(host);
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
