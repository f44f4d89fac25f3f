/**
 * `PROXY_ROUTE_<NAME>_KEEPALIVE`: `false` turns connection reuse off for a route
 * whose upstream cannot be trusted to frame its responses (each request then goes
 * on a connection of its own, closed after the response).
 *
 * @module
 */
import { parseBoolean } from "../../lib/setting_kinds.ts";
import { routeVariableStem } from "./route_additions.ts";
import type { ProxyRoute } from "./routes.ts";

/** What {@linkcode readRouteKeepAlive} found. */
export interface KeepAliveReading {
  /** The names of the routes whose connections are not reused. */
  off: ReadonlySet<string>;
  /** One sentence per problem, each naming its variable. */
  problems: string[];
}

/**
 * Reads `PROXY_ROUTE_<NAME>_KEEPALIVE` of each route from `env` (a boolean; unset
 * or empty: `true`).
 *
 * @example
 * ```ts
 * import { parseRoutes } from "./routes.ts";
 *
 * const { off } = readRouteKeepAlive(
 *   { PROXY_ROUTE_LEGACY_KEEPALIVE: "false" },
 *   parseRoutes("legacy=http://127.0.0.1:8080"),
 * );
 * off.has("legacy"); // true
 * ```
 */
export function readRouteKeepAlive(
  env: Readonly<Record<string, string | undefined>>,
  routes: readonly ProxyRoute[],
): KeepAliveReading {
  const off = new Set<string>();
  const problems: string[] = [];
  for (const route of routes) {
    const name = `PROXY_ROUTE_${routeVariableStem(route.name)}_KEEPALIVE`;
    const raw = env[name]?.trim() ?? "";
    if (raw === "") continue;
    try {
      if (!parseBoolean(raw)) off.add(route.name);
    } catch {
      problems.push(`Invalid ${name}: expected true or false`);
    }
  }
  return { off, problems };
}
