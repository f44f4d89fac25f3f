/**
 * The proxy's rate limits at work: each client's requests to a route counted in
 * windows (`PROXY_RATE_LIMIT`, `PROXY_ROUTE_<NAME>_RATE_LIMIT`), the upstream calls of
 * a route for all clients together (`PROXY_UPSTREAM_RATE_LIMIT_<NAME>`), 429 past
 * either, and the `RateLimit-Policy` and `RateLimit` headers of the IETF httpapi
 * draft on every response of a limited route.
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import type { ClientKey } from "./_client_address.ts";
import { corsHeaders, exposeOn } from "./cors.ts";
import type { RateLimit } from "./rate_limit.ts";
import {
  createRateWindows,
  type RateCount,
  type RateWindows,
} from "./rate_windows.ts";
import type { RouteUpstream } from "./response_cache.ts";
import { rateLimitVariable } from "./route_rate_limits.ts";
import type { ProxyRoute } from "./routes.ts";

/** The headers a page must be able to read on the responses of a limited route. */
export const RATE_LIMIT_HEADERS: readonly string[] = [
  "ratelimit",
  "ratelimit-policy",
  "retry-after",
];

/** Options of {@linkcode createRateLimitGuard}. */
export interface RateLimitGuardOptions {
  /** Requests per client per window on every route (`PROXY_RATE_LIMIT`). @default none */
  limit?: RateLimit;
  /** Per-route limits replacing `limit` (`null`: none), by route name. @default none */
  perClient?: ReadonlyMap<string, RateLimit | null>;
  /** Ceilings on the upstream calls of all clients together, by route name. @default none */
  upstream?: ReadonlyMap<string, RateLimit>;
  /** Who a request counts against. */
  clientKey: ClientKey;
  /** Most client windows kept per route, the oldest dropped first. @default 100000 */
  maxClients?: number;
  /** Where the first refusal of each window is logged. */
  log: Log;
  /** `Access-Control-Allow-Origin` of the 429 responses. */
  allowOrigin: string;
  /** The clock. @default Date.now */
  now?: () => number;
}

/** The limits of one route. */
interface RouteLimits {
  client?: { limit: RateLimit; windows: RateWindows; variable: string };
  upstream?: { limit: RateLimit; windows: RateWindows; variable: string };
  /** The `RateLimit-Policy` value. */
  policy: string;
}

/** The rate limits of every route. */
export interface RateLimitGuard {
  /** Whether route `name` has a limit of any kind. */
  limits(name: string): boolean;
  /**
   * Counts a request of `route` from `peer` (the address it came from): the 429
   * response past the client's limit (with the headers of {@linkcode decorate}), or
   * the count (`undefined` without one).
   */
  admit(
    request: Request,
    peer: string | undefined,
    route: ProxyRoute,
  ): RateCount | Response | undefined;
  /** `call` with each route's upstream ceiling (a 429 past it). */
  upstream(call: RouteUpstream): RouteUpstream;
  /** `response` with the `RateLimit-Policy` and `RateLimit` headers of `route`. */
  decorate(
    response: Response,
    route: ProxyRoute,
    count: RateCount | undefined,
  ): Response;
  /**
   * The `RateLimit-Policy` and `RateLimit` pairs of {@linkcode decorate}, for a
   * response still to be made (cheaper than setting them on a `Response`, whose
   * headers Deno then builds twice); none when `route` has no limit.
   */
  pairs(route: ProxyRoute, count: RateCount | undefined): [string, string][];
}

/**
 * Returns the guard of the limits given.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import { createClientKey } from "./_client_address.ts";
 * import { parseRateLimit } from "./rate_limit.ts";
 * import { parseRoutes } from "./routes.ts";
 *
 * const [route] = parseRoutes("api=https://example.com");
 * const guard = createRateLimitGuard({
 *   limit: parseRateLimit("60/1m"),
 *   clientKey: createClientKey(),
 *   log: createLog("proxy"),
 *   allowOrigin: "*",
 * });
 * guard.admit(new Request("http://proxy/api/x"), "10.0.0.1", route!);
 * ```
 */
export function createRateLimitGuard(
  options: RateLimitGuardOptions,
): RateLimitGuard {
  const { log, clientKey, allowOrigin } = options;
  const byRoute = new Map<string, RouteLimits | undefined>();
  const windowsOf = (limit: RateLimit, maxKeys: number) =>
    createRateWindows(limit, { maxKeys, now: options.now });
  const limitsOf = (name: string): RouteLimits | undefined => {
    if (byRoute.has(name)) return byRoute.get(name);
    const own = options.perClient?.get(name);
    const client = own === undefined ? options.limit : own ?? undefined;
    const upstream = options.upstream?.get(name);
    let limits: RouteLimits | undefined;
    if (client !== undefined || upstream !== undefined) {
      limits = { policy: "" };
      const policies: string[] = [];
      if (client !== undefined) {
        limits.client = {
          limit: client,
          windows: windowsOf(client, options.maxClients ?? 100_000),
          variable: own
            ? rateLimitVariable(name, "client")
            : "PROXY_RATE_LIMIT",
        };
        policies.push(policy("client", client));
      }
      if (upstream !== undefined) {
        limits.upstream = {
          limit: upstream,
          windows: windowsOf(upstream, 1),
          variable: rateLimitVariable(name, "upstream"),
        };
        policies.push(policy("upstream", upstream));
      }
      limits.policy = policies.join(", ");
    }
    byRoute.set(name, limits);
    return limits;
  };
  const refusal = (message: string, count: RateCount) => {
    const headers = new Headers(corsHeaders(allowOrigin));
    headers.set("retry-after", String(count.resetSeconds));
    exposeOn(headers, RATE_LIMIT_HEADERS);
    return Response.json({ message }, { status: 429, headers });
  };
  /** The `RateLimit` value of `limits` for a request counted `count`. */
  const stateOf = (limits: RouteLimits, count: RateCount | undefined) => {
    let state = count === undefined ? "" : remaining("client", count);
    if (limits.upstream !== undefined) {
      const upstream = remaining(
        "upstream",
        limits.upstream.windows.peek(""),
      );
      state = state === "" ? upstream : `${state}, ${upstream}`;
    }
    return state;
  };
  const pairs = (
    route: ProxyRoute,
    count: RateCount | undefined,
  ): [string, string][] => {
    const limits = limitsOf(route.name);
    if (limits === undefined) return [];
    const state = stateOf(limits, count);
    return state === ""
      ? [["ratelimit-policy", limits.policy]]
      : [["ratelimit-policy", limits.policy], ["ratelimit", state]];
  };
  const decorate = (
    response: Response,
    route: ProxyRoute,
    count: RateCount | undefined,
  ): Response => {
    const added = pairs(route, count);
    if (added.length === 0) return response;
    let target = response;
    try {
      setAll(target.headers, added);
    } catch {
      // Immutable headers: a copy takes the new ones.
      target = new Response(response.body, response);
      setAll(target.headers, added);
    }
    exposeOn(target.headers, RATE_LIMIT_HEADERS);
    return target;
  };
  return {
    decorate,
    pairs,
    limits: (name) => limitsOf(name) !== undefined,
    admit(request, peer, route) {
      const client = limitsOf(route.name)?.client;
      if (client === undefined) return undefined;
      const key = clientKey(request, peer);
      const count = client.windows.take(key);
      if (count.allowed) return count;
      const { limit } = client;
      if (count.firstRefusal) {
        log.warn(
          `Client ${key} reached the rate limit of route "${route.name}" (${limit.text} per client, ${client.variable}): refused for ${count.resetSeconds} s`,
        );
      }
      return decorate(
        refusal(
          `Rate limit of route "${route.name}" reached: ${limit.limit} requests per ${
            windowText(limit)
          } per client (${client.variable}); retry in ${count.resetSeconds} s`,
          count,
        ),
        route,
        count,
      );
    },
    upstream(call) {
      return (request, route, target, counting) => {
        const upstream = limitsOf(route.name)?.upstream;
        if (upstream === undefined) {
          return call(request, route, target, counting);
        }
        const count = upstream.windows.take("");
        if (count.allowed) return call(request, route, target, counting);
        const { limit } = upstream;
        if (count.firstRefusal) {
          log.warn(
            `Route "${route.name}" reached its upstream rate limit (${limit.text} for all clients, ${upstream.variable}): requests not served from the cache refused for ${count.resetSeconds} s`,
          );
        }
        return Promise.resolve(refusal(
          `Rate limit of route "${route.name}" reached: ${limit.limit} upstream requests per ${
            windowText(limit)
          } for all clients (${upstream.variable}); retry in ${count.resetSeconds} s`,
          count,
        ));
      };
    },
  };
}

/** Sets each of `pairs` on `headers`. */
function setAll(headers: Headers, pairs: readonly [string, string][]): void {
  for (const [name, value] of pairs) headers.set(name, value);
}

/** One member of `RateLimit-Policy`: quota `q` per window `w` in seconds. */
function policy(name: string, limit: RateLimit): string {
  return `"${name}";q=${limit.limit};w=${Math.ceil(limit.windowMs / 1000)}`;
}

/** One member of `RateLimit`: `r` requests left, `t` seconds to the window's end. */
function remaining(name: string, count: RateCount): string {
  return `"${name}";r=${count.remaining};t=${count.resetSeconds}`;
}

/** The window of `limit` as written (`1m`). */
function windowText(limit: RateLimit): string {
  return limit.text.slice(limit.text.indexOf("/") + 1);
}
