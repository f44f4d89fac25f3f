/**
 * The zero-configuration demo set that `deno task start` runs when no role is named.
 *
 * @module
 */
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
    result.API_URL = `http://127.0.0.1:${port}/data`;
    result.API_KEY = result.DATA_API_TOKEN;
  }
  return { env: result, generatedToken };
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
