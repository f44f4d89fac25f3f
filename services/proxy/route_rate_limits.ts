/**
 * Per-route rate limits: `PROXY_ROUTE_<NAME>_RATE_LIMIT` (per client, replacing
 * `PROXY_RATE_LIMIT` for that route, `off` for none) and
 * `PROXY_UPSTREAM_RATE_LIMIT_<NAME>` (all clients together: the upstream's quota).
 *
 * @module
 */
import type { Env } from "../../lib/settings.ts";
import {
  parseRateLimit,
  parseRouteRateLimit,
  type RateLimit,
} from "./rate_limit.ts";
import { routeVariableStem } from "./route_additions.ts";
import type { ProxyRoute } from "./routes.ts";

/** The limits read from the route variables. */
export interface RouteRateLimits {
  /** Per-client limits replacing `PROXY_RATE_LIMIT` (`null`: none), by route name. */
  readonly perClient: ReadonlyMap<string, RateLimit | null>;
  /** Ceilings for all clients together, by route name. */
  readonly upstream: ReadonlyMap<string, RateLimit>;
  /** One sentence per problem, each naming its variable. */
  readonly problems: string[];
}

const CLIENT = /^PROXY_ROUTE_(.+)_RATE_LIMIT$/;
const UPSTREAM = /^PROXY_UPSTREAM_RATE_LIMIT_(.+)$/;

/**
 * The variable of route `name`'s limit of `kind`.
 *
 * @example
 * ```ts
 * rateLimitVariable("open-weather", "client"); // "PROXY_ROUTE_OPEN_WEATHER_RATE_LIMIT"
 * ```
 */
export function rateLimitVariable(
  name: string,
  kind: "client" | "upstream",
): string {
  const stem = routeVariableStem(name);
  return kind === "client"
    ? `PROXY_ROUTE_${stem}_RATE_LIMIT`
    : `PROXY_UPSTREAM_RATE_LIMIT_${stem}`;
}

/**
 * Reads the per-route limits of `routes` from `env`. A variable naming no route, one
 * that two routes map to, or a malformed value is a problem.
 *
 * @example
 * ```ts
 * import { parseRoutes } from "./routes.ts";
 *
 * const { upstream, problems } = readRouteRateLimits(
 *   { PROXY_UPSTREAM_RATE_LIMIT_WEATHER: "60/1m" },
 *   parseRoutes("weather=https://api.openweathermap.org/data/2.5"),
 * );
 * upstream.get("weather")?.limit; // 60
 * ```
 */
export function readRouteRateLimits(
  env: Env,
  routes: readonly ProxyRoute[],
): RouteRateLimits {
  const problems: string[] = [];
  const perClient = new Map<string, RateLimit | null>();
  const upstream = new Map<string, RateLimit>();
  const owners = new Map<string, string[]>();
  for (const route of routes) {
    const stem = routeVariableStem(route.name);
    owners.set(stem, [...owners.get(stem) ?? [], route.name]);
  }
  for (const name of Object.keys(env).sort()) {
    const raw = env[name]?.trim() ?? "";
    if (raw === "") continue;
    const kind = CLIENT.test(name)
      ? "client"
      : UPSTREAM.test(name)
      ? "upstream"
      : undefined;
    if (kind === undefined) continue;
    const stem = (kind === "client" ? CLIENT : UPSTREAM).exec(name)![1]!;
    const named = owners.get(stem);
    if (named === undefined) {
      const form = kind === "client"
        ? "PROXY_ROUTE_<NAME>_RATE_LIMIT"
        : "PROXY_UPSTREAM_RATE_LIMIT_<NAME>";
      problems.push(
        `Invalid ${name}: it names no route of PROXY_ROUTES (route NAME is read from ${form}, NAME in upper case with - . ~ as _): fix the name or register the route`,
      );
      continue;
    }
    if (named.length > 1) {
      problems.push(
        `Invalid ${name}: routes ${
          named.map((n) => `"${n}"`).join(" and ")
        } both map to it: rename one of them`,
      );
      continue;
    }
    try {
      if (kind === "client") perClient.set(named[0]!, parseRouteRateLimit(raw));
      else upstream.set(named[0]!, parseRateLimit(raw));
    } catch (error) {
      problems.push(`Invalid ${name} "${raw}": ${(error as Error).message}`);
    }
  }
  return { perClient, upstream, problems };
}
