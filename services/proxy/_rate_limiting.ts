/**
 * The rate limits around the proxy's relay: each request counted before it is
 * relayed, the upstream ceiling past the cache (a hit does not count against it), and
 * the `RateLimit-Policy` and `RateLimit` headers on every response of a limited route.
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import { createClientKey } from "./_client_address.ts";
import { exposeOn } from "./cors.ts";
import type { CountedRequest, Relay, RelayAdditions } from "./relay.ts";
import {
  createRateLimitGuard,
  RATE_LIMIT_HEADERS,
  type RateLimitGuardOptions,
} from "./rate_limit_guard.ts";
import type { RouteUpstream } from "./response_cache.ts";
import type { ProxyRoute } from "./routes.ts";
import type { AddressRange } from "./trusted_proxies.ts";

/** The rate limits of the proxy (`docs/proxy.md#rate-limits`). */
export interface ProxyRateLimits extends
  Pick<
    RateLimitGuardOptions,
    "limit" | "perClient" | "upstream" | "maxClients"
  > {
  /** Reverse proxies whose `X-Forwarded-For` (or `Forwarded`) is believed. @default none */
  trustedProxies?: readonly AddressRange[];
  /** Count per client address, or per `Origin`. @default "address" */
  by?: "address" | "origin";
}

/** What {@linkcode createRateLimiting} needs besides the limits. */
export interface RateLimitingOptions {
  /** Where the first refusal of each window is logged. */
  log: Log;
  /** `Access-Control-Allow-Origin` of the 429 responses. */
  allowOrigin: string;
  /** The clock. @default Date.now */
  now?: () => number;
}

/** The rate limits, put around the relay and the requests of limited routes. */
export interface RateLimiting {
  /**
   * `relay` as the cache calls it: the upstream ceiling first, then the relay with
   * the route's `additions` and a counted request's rate-limit headers.
   */
  upstream(
    relay: Relay,
    additions: (route: ProxyRoute) => RelayAdditions | undefined,
  ): RouteUpstream;
  /**
   * Counts `request` of `route` from `peer` (the address it came from): a 429 past
   * the client's limit, or else the response of `next` with the rate-limit headers.
   * `next` passes `counting` on to the upstream call ({@linkcode RouteUpstream}),
   * whose relay puts them in with the response's other headers.
   */
  admit(
    request: Request,
    peer: string | undefined,
    route: ProxyRoute,
    next: (counting?: CountedRequest) => Response | Promise<Response>,
  ): Response | Promise<Response>;
}

/**
 * Returns the rate limits of `limits`, or `undefined` when they limit nothing.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import { parseRateLimit } from "./rate_limit.ts";
 * import { parseRoutes } from "./routes.ts";
 *
 * const [route] = parseRoutes("api=https://example.com");
 * const limiting = createRateLimiting(
 *   { limit: parseRateLimit("1/1m") },
 *   { log: createLog("proxy"), allowOrigin: "*" },
 * );
 * const ok = () => new Response("ok");
 * limiting?.admit(new Request("http://proxy/api/x"), "10.0.0.1", route!, ok); // 200
 * limiting?.admit(new Request("http://proxy/api/x"), "10.0.0.1", route!, ok); // 429
 * ```
 */
export function createRateLimiting(
  limits: ProxyRateLimits | undefined,
  options: RateLimitingOptions,
): RateLimiting | undefined {
  if (
    !limits || !(limits.limit || limits.perClient?.size ||
      limits.upstream?.size)
  ) {
    return undefined;
  }
  const guard = createRateLimitGuard({
    ...limits,
    ...options,
    clientKey: createClientKey({
      trusted: limits.trustedProxies,
      by: limits.by,
    }),
  });
  // The rate-limit headers of a relayed response go in with its other headers: set
  // on the Response afterwards, they make Deno build its headers twice, which cost
  // a fifth of the requests per second. Other responses (cache hits, the proxy's
  // own) get them set. The counted request is passed along, not looked up: a
  // WeakMap keyed by each request cost a fifth of the limits' time.
  return {
    upstream: (relay, additions) =>
      guard.upstream((request, route, target, counting) => {
        const added = additions(route);
        return relay(
          request,
          route,
          target,
          counting ? withRateLimits(counting, added) : added,
        );
      }),
    admit(request, peer, route, next) {
      if (!guard.limits(route.name)) return next();
      const count = guard.admit(request, peer, route);
      if (count instanceof Response) return count;
      const counting: CountedRequest = {
        pairs: () => guard.pairs(route, count),
        applied: false,
      };
      const decorated = (response: Response) =>
        counting.applied ? response : guard.decorate(response, route, count);
      const response = next(counting);
      return response instanceof Response
        ? decorated(response)
        : response.then(decorated);
    },
  };
}

/** `added` with the rate-limit headers of `counting` put on the response. */
function withRateLimits(
  counting: CountedRequest,
  added: RelayAdditions | undefined,
): RelayAdditions {
  return {
    request: (pairs) => added ? added.request(pairs) : pairs,
    response(pairs) {
      // The proxy's replace the upstream's own.
      const own = counting.pairs();
      const out = (added ? added.response(pairs) : pairs).filter(([name]) =>
        !own.some(([replaced]) => replaced === name)
      );
      for (const pair of own) out.push(pair);
      exposeOn(out, RATE_LIMIT_HEADERS);
      counting.applied = true;
      return out;
    },
  };
}
