/**
 * The proxy's HTTP app: CORS preflight, method and path checks, then the relay.
 *
 * @module
 */
import { type Context, Hono } from "hono";
import { healthCheck } from "../../lib/health_check.ts";
import { jsonErrors } from "../../lib/json_errors.ts";
import type { Log } from "../../lib/log.ts";
import { methodNotAllowed } from "../../lib/method_not_allowed.ts";
import { preview } from "../../lib/preview.ts";
import { type CountedRequest, createRelay } from "./relay.ts";
import type { Http1Client } from "../../lib/http1/client.ts";
import { createUpstream } from "../../lib/http1/upstream.ts";
import type { Resolution } from "./resolve_target.ts";
import { createResolver } from "./_resolver.ts";
import { declaresBody } from "./_headers.ts";
import type { ProxyRoute } from "./routes.ts";
import {
  type AllowedOrigins,
  parseAllowOrigin,
} from "../../lib/allow_origin.ts";
import { createOriginPolicy, originRule } from "./origin_policy.ts";
import { corsHeaders, preflight, withCors } from "./cors.ts";
import type { AdditionsByRoute } from "./route_additions.ts";
import { createAdditionsApplier } from "./apply_additions.ts";
import { createResponseCache, type RouteUpstream } from "./response_cache.ts";
import { createRateLimiting, type ProxyRateLimits } from "./_rate_limiting.ts";
import { requireHeader } from "./require_header.ts";
import { httpMetrics } from "../../lib/metrics/http_metrics.ts";
import type { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { readyzResponse } from "../../lib/readyz.ts";
import { proxyMetrics } from "./proxy_metrics.ts";
import { createPrivateHeaders } from "./private_headers.ts";

/** Methods relayed to the upstream. */
export const RELAYED_METHODS: readonly string[] = [
  "GET",
  "POST",
  "PUT",
  "DELETE",
];

/** Dependencies and settings of {@linkcode createProxyApp}. */
export interface ProxyAppOptions {
  /** The registrations, every one consulted. */
  routes: readonly ProxyRoute[];
  /**
   * The pooled HTTP/1.1 client of `lib/http1/client.ts`, for `http:` upstreams (the
   * role passes one). Without it, every upstream is called through `fetch`.
   */
  http1?: Http1Client;
  /** The `fetch` for the other upstreams (`https:`). @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Where failures are logged. */
  log: Log;
  /**
   * The origins whose pages may read the responses: `*`, or a list (a string is read
   * as `PROXY_ALLOW_ORIGIN` is). @default "*"
   */
  allowOrigin?: AllowedOrigins | string;
  /** Query parameters and headers added to the calls of some routes. @default none */
  additions?: AdditionsByRoute;
  /** How long 200 responses to GET are kept, in ms; 0: no cache. @default 0 */
  cacheMs?: number;
  /** `PROXY_CACHE_MAX_BYTES` (`docs/proxy.md#response-cache`). @default 16 MiB */
  cacheMaxBytes?: number;
  /** The cache's clock. @default Date.now */
  now?: () => number;
  /** Longest wait for an upstream's headers, in ms (then 504). @default 30000 */
  timeoutMs?: number;
  /**
   * `PROXY_MAX_RESPONSE_BYTES`: bound on the bytes of a body decoded on the way
   * (then 502, or the response cut short). @default Infinity
   */
  maxResponseBytes?: number;
  /**
   * `PROXY_PRIVATE_HEADERS`: requests carrying one (or `Authorization`, `Cookie`)
   * share connections only with requests carrying the same values, and requests
   * carrying one (or `Cookie`) bypass the cache. @default DEFAULT_PRIVATE_HEADERS
   */
  privateHeaders?: readonly string[];
  /** Routes whose connections are not reused (`PROXY_ROUTE_<NAME>_KEEPALIVE`). */
  keepAliveOff?: ReadonlySet<string>;
  /** Longest wait on a stalled client, in ms (then 408). @default 10 × timeoutMs */
  clientTimeoutMs?: number;
  /**
   * This proxy's name in the `Via` header of its upstream requests; a request whose `Via`
   * already names it came round a loop. @default "homewire-proxy-" and 8 random hex digits
   */
  pseudonym?: string;
  /** The rate limits (`docs/proxy.md#rate-limits`). @default none */
  rateLimits?: ProxyRateLimits;
  /**
   * Relayed requests must carry one of these headers (lower case), or get 403
   * (`PROXY_REQUIRE_HEADER`). @default none
   */
  requireHeader?: readonly string[];
  /**
   * Client headers never forwarded, lower case (`PROXY_REMOVE_HEADERS`).
   * @default ["cookie", "cookie2"]
   */
  removeHeaders?: readonly string[];
  /**
   * The role's metrics: every request counted and timed, upstream requests, the
   * cache and refused origins counted. @default none
   */
  metrics?: MetricsRegistry;
}

export type { ProxyRateLimits };

/**
 * Returns the proxy app. `GET /healthz` returns `{"status":"ok"}` unless a route is
 * named `healthz` (the route wins). OPTIONS responds to a CORS preflight (204); methods
 * other than GET, POST, PUT, DELETE get 405 and unmatched paths 404, both with an empty
 * body; a path that would leave its base URL gets 400 without any upstream request, and a
 * request that came round a loop of routes back to this proxy (its `Via` names it)
 * gets 508, and a GET with a body (which Deno does not hand over) gets 400. Every
 * response carries `Access-Control-Allow-Origin`; with a list of origins, a request
 * from an unlisted one gets 403 (without it) and no upstream request.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import { parseRoutes } from "./routes.ts";
 *
 * const app = createProxyApp({
 *   routes: parseRoutes("api=https://example.com"),
 *   log: createLog("proxy"),
 * });
 * const response = await app.request("/api/users");
 * ```
 */
export function createProxyApp(options: ProxyAppOptions): Hono {
  const { routes } = options;
  const origins = typeof options.allowOrigin === "string"
    ? parseAllowOrigin(options.allowOrigin)
    : options.allowOrigin ?? "*";
  const policy = createOriginPolicy(origins);
  const allowOrigin = policy.fallback;
  const additions = createAdditionsApplier(options.additions ?? new Map());
  // The added values are secrets: no log line may hold one.
  const log = options.additions?.size
    ? additions.log(options.log)
    : options.log;
  const privateHeaders = createPrivateHeaders(options.privateHeaders);
  const pseudonym = options.pseudonym ??
    `homewire-proxy-${crypto.randomUUID().slice(0, 8)}`;
  const measured = options.metrics && proxyMetrics(options.metrics);
  const relay = createRelay({
    onUpstream: measured &&
      ((route, outcome, seconds) =>
        measured.upstream(route.name, outcome, seconds)),
    call: createUpstream({ http1: options.http1, fetch: options.fetch }),
    log,
    allowOrigin,
    timeoutMs: options.timeoutMs ?? 30_000,
    clientTimeoutMs: options.clientTimeoutMs,
    maxDecodedBytes: options.maxResponseBytes,
    partition: (request) => privateHeaders.partition(request.headers),
    keepAliveOff: options.keepAliveOff,
    via: `1.1 ${pseudonym}`,
    removeHeaders: options.removeHeaders,
  });
  const limiting = createRateLimiting(options.rateLimits, {
    log,
    allowOrigin,
    now: options.now,
  });
  const relayed = (route: ProxyRoute) => additions.relayed(route.name);
  // The headers are set in the relay, past the cache: a hit needs no new request.
  // The upstream ceiling sits past the cache too: a hit does not count against it.
  const upstream: RouteUpstream = limiting
    ? limiting.upstream(relay, relayed)
    : (request, route, target) => relay(request, route, target, relayed(route));
  const cacheMs = options.cacheMs ?? 0;
  const call = cacheMs > 0
    ? createResponseCache(upstream, {
      ttlMs: cacheMs,
      maxBytes: options.cacheMaxBytes ?? 16 * 1024 * 1024,
      now: options.now,
      addsAuthorization: (route) =>
        additions.of(route.name)?.headers.some(([name]) =>
          name === "authorization"
        ) ?? false,
      headerValue: (request, route, name) =>
        additions.header(additions.of(route.name), request, name),
      events: measured?.cache,
      // Set on each response, the hits' included, by the rate limits (an upstream's
      // own would be stale on a hit). Not Retry-After: it belongs to the response.
      unstored: ["ratelimit", "ratelimit-policy"],
      // A private header the route replaces is the proxy's, not the client's.
      isPrivate: (request, route) =>
        privateHeaders.carried(
          request.headers,
          new Set(additions.of(route.name)?.headers.map(([name]) => name)),
        ),
    })
    : upstream;
  /** Relays `request` within `route` to `parsed`, its target (added parameters in). */
  const logged = (
    request: Request,
    route: ProxyRoute,
    parsed: URL,
    counting: CountedRequest | undefined,
  ) => {
    // The query may hold the client's keys, or the route's: not logged. The origin is
    // the route's (resolveTarget checked it), cheaper than parsing it out again. Not
    // built at all when DEBUG is off (the line, and the masking of the route's values).
    if (log.enabled?.("debug") !== false) {
      log.debug(
        `${request.method} on route "${route.name}" to ${route.origin}${parsed.pathname}${
          parsed.search ? "?…" : ""
        }`,
      );
    }
    return call(request, route, parsed, counting);
  };
  const resolve = createResolver(routes, {
    additions: options.additions?.size ? additions : undefined,
    remember: cacheMs > 0,
  });
  const cors = corsHeaders(allowOrigin);
  const allowed = [...RELAYED_METHODS, "OPTIONS"];
  const required = options.requireHeader?.length
    ? requireHeader(options.requireHeader, cors)
    : undefined;
  // Composed from the pieces of lib/, without the 404 of other roles: every path
  // goes to the one route below, which keeps the relay on Hono's one-handler path.
  // Every response carries the CORS header (cors.ts), the health check's and the
  // errors' too. With a list of origins, the origin rule comes first: an unlisted
  // origin's 403 carries none, and every other response names the client's origin.
  const app = new Hono();
  if (options.metrics) app.use(httpMetrics(options.metrics));
  if (origins !== "*") app.use(originRule(policy, measured?.refusedOrigin));
  if (!routes.some((route) => route.name === "healthz")) {
    app.get("/healthz", (c) => withCors(healthCheck(c), allowOrigin));
  }
  // Ready once started; a route named readyz wins, as for healthz.
  if (!routes.some((route) => route.name === "readyz")) {
    app.get("/readyz", () => withCors(readyzResponse(undefined), allowOrigin));
  }
  const errors = jsonErrors(log);
  app.onError(async (error, c) =>
    withCors(await errors(error, c), allowOrigin)
  );

  const handle = (c: Context): Response | Promise<Response> => {
    const request = c.req.raw;
    if (request.method === "OPTIONS") {
      return preflight(request, allowOrigin, allowed);
    }
    // Empty bodies: the 404 and 405 of the proxy's contract (docs/proxy.md).
    if (!RELAYED_METHODS.includes(request.method)) {
      return withCors(
        methodNotAllowed(c, allowed, { emptyBody: true }),
        allowOrigin,
      );
    }
    const resolution = resolve(request.url);
    if (resolution.kind === "unmatched") {
      return new Response(null, { status: 404, headers: cors });
    }
    if (resolution.kind === "rejected") {
      return Response.json(
        {
          message: `Invalid path "${
            preview(resolution.path, 200)
          }": ${resolution.reason}`,
        },
        { status: 400, headers: cors },
      );
    }
    return within(request, c.env, resolution);
  };
  /** A request resolved within a route: the checks past the path's, then the relay. */
  const within = (
    request: Request,
    env: unknown,
    resolution: Resolution & { kind: "target" },
  ): Response | Promise<Response> => {
    const refused = required?.(request);
    if (refused) return refused;
    const { route, parsed } = resolution;
    if (!limiting) return guarded(request, route, parsed);
    const peer = (env as Deno.ServeHandlerInfo<Deno.NetAddr> | undefined)
      ?.remoteAddr?.hostname;
    return limiting.admit(
      request,
      peer,
      route,
      (counting) => guarded(request, route, parsed, counting),
    );
  };
  /** The checks past the path's, then the relay. */
  const guarded = (
    request: Request,
    route: ProxyRoute,
    parsed: URL,
    counting?: CountedRequest,
  ): Response | Promise<Response> => {
    // Deno gives a GET request no body: refuse one that has it rather than drop it.
    if (request.method === "GET" && declaresBody(request.headers)) {
      return Response.json(
        {
          message:
            "A GET request with a body cannot be relayed: send the body with POST or PUT",
        },
        { status: 400, headers: cors },
      );
    }
    if (request.headers.get("via")?.includes(pseudonym)) {
      // The route that sent it is not known here (it may be on another proxy).
      const message =
        "This request already passed through this proxy (its Via says so): a route in PROXY_ROUTES points back at the proxy";
      log.warn(message);
      return Response.json({ message }, { status: 508, headers: cors });
    }
    return logged(request, route, parsed, counting);
  };
  app.all("*", handle);
  return app;
}
