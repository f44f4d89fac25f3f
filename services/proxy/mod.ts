/**
 * The `proxy` role: maps a first path segment to an upstream base URL and relays the
 * request there, with CORS headers, so a browser page can reach upstream servers.
 *
 * Layout: a role's folder imports `lib/`, `drivers/` and itself, never another role
 * (`tests/layout_test.ts` checks it).
 *
 * @module
 */
import { proxyMetrics } from "./proxy_metrics.ts";
import {
  listenAt,
  listenSettings,
  type RunningServer,
  serveApp,
} from "../../lib/serve.ts";
import { defineRole } from "../../lib/role.ts";
import { choice, durationMs, integer } from "../../lib/setting_kinds.ts";
import { allowOrigin } from "../../lib/allow_origin.ts";
import { createProxyApp } from "./app.ts";
import { corsHeaders, fallbackOrigin } from "./cors.ts";
import { createHttp1Client } from "../../lib/http1/client.ts";
import {
  outboundProxyOf,
  outboundProxySettings,
  outboundProxyText,
} from "../../lib/outbound_proxy_settings.ts";
import { proxyRoutes } from "./routes.ts";
import { readRouteAdditions } from "./route_additions.ts";
import { type RateLimit, rateLimit } from "./rate_limit.ts";
import { readRouteRateLimits } from "./route_rate_limits.ts";
import { headerNames } from "./require_header.ts";
import { trustedProxies } from "./trusted_proxies.ts";
import { REMOVED_BY_DEFAULT } from "./_headers.ts";
import { readRouteKeepAlive } from "./route_keepalive.ts";
import { createAdditionsApplier } from "./apply_additions.ts";
import { privateHeaders } from "./private_headers.ts";

/** The `proxy` role descriptor. */
export const proxyRole = defineRole({
  name: "proxy",
  summary: "Path-mapping CORS proxy: /NAME/rest is relayed to the URL of NAME",
  settings: {
    PROXY_ROUTES: proxyRoutes({
      description:
        "Registrations NAME=URL, comma-separated (api=https://example.com/v1,local=http://127.0.0.1:8080)",
    }),
    PROXY_ALLOW_ORIGIN: allowOrigin({
      description:
        "* (any page), or the origins whose pages may read the responses, comma-separated (https://app.example.com,http://127.0.0.1:5173); others get 403. No authentication",
      default: "*",
    }),
    PROXY_TIMEOUT_MS: durationMs({
      description:
        "Longest wait for an upstream's response before 504, and longest silence mid-response",
      default: 30_000,
      min: 1,
    }),
    PROXY_CACHE_MS: durationMs({
      description:
        "How long 200 responses to GET are kept in memory and served again (the upstream's Cache-Control may shorten it); 0: no cache",
      default: 0,
    }),
    PROXY_CACHE_MAX_BYTES: integer({
      description:
        "Bound on the bytes of the cached bodies, least recently used out first; a response over a sixteenth of it is not cached",
      default: 16 * 1024 * 1024,
      min: 16,
    }),
    PROXY_RATE_LIMIT: rateLimit({
      description:
        "Requests each client may make to each route per window: 60/1m, 5/1s (units ms, s, m, h, d); past it 429. off: no limit",
    }),
    PROXY_RATE_LIMIT_BY: choice(["address", "origin"], {
      description:
        "What a client is for the rate limits: its address (see PROXY_TRUSTED_PROXIES), or its Origin header (its address without one)",
      default: "address",
    }),
    PROXY_RATE_LIMIT_MAX_CLIENTS: integer({
      description:
        "Most clients whose rate-limit windows are kept per route, the oldest dropped first (about 150 bytes each)",
      default: 100_000,
      min: 1,
    }),
    PROXY_TRUSTED_PROXIES: trustedProxies({
      description:
        "Addresses or CIDR ranges of reverse proxies in front (127.0.0.1,10.0.0.0/8,fd00::/8): from them, the first untrusted address of X-Forwarded-For (or Forwarded) is the client",
    }),
    PROXY_REQUIRE_HEADER: headerNames({
      description:
        "Relayed requests must carry one of these headers (origin,x-requested-with), or get 403: no casual browsing or hot-linking",
      default: [],
    }),
    PROXY_REMOVE_HEADERS: headerNames({
      description:
        "Client headers never forwarded, replacing the default list (hop-by-hop headers, Host, Expect and Accept-Encoding never are)",
      default: REMOVED_BY_DEFAULT,
    }),
    PROXY_MAX_RESPONSE_BYTES: integer({
      description:
        "Bound on the bytes an upstream's gzip, deflate or br body decodes to (a decompression bomb: 841 bytes of br can decode to 1 GiB); past it, 502 when found within the first MiB, else the response is cut short",
      default: 256 * 1024 * 1024,
      min: 1,
    }),
    PROXY_PRIVATE_HEADERS: privateHeaders({
      description:
        "Request headers that make a response one client's own, besides Authorization and Cookie: responses to requests carrying one (or Cookie) are neither cached nor served from the cache, and clients whose values differ (Authorization and Cookie too) never share a connection to an upstream",
    }),
    ...listenSettings("PROXY", 8002),
    // Upstream requests go out through the outbound proxy.
    ...outboundProxySettings,
  },
  patterns: {
    "PROXY_ROUTE_<NAME>_QUERY":
      "Form-encoded parameters added to every call of route NAME (upper case, - . ~ as _), replacing the client's of that name: appid=KEY&units=metric. Never logged nor returned",
    "PROXY_ROUTE_<NAME>_HEADERS":
      'JSON object of headers set on every call of route NAME, replacing the client\'s: {"X-Api-Key":"KEY"}. Never logged nor returned',
    "PROXY_ROUTE_<NAME>_QUERY_FILE":
      "File holding the value of PROXY_ROUTE_<NAME>_QUERY (container secrets); not with it",
    "PROXY_ROUTE_<NAME>_HEADERS_FILE":
      "File holding the value of PROXY_ROUTE_<NAME>_HEADERS; not with it",
    "PROXY_ROUTE_<NAME>_RATE_LIMIT":
      "Requests each client may make to route NAME per window, replacing PROXY_RATE_LIMIT there: 60/1m, or off",
    "PROXY_UPSTREAM_RATE_LIMIT_<NAME>":
      "Requests all clients together may make to route NAME's upstream per window (its quota): 1000/1d; cached responses do not count",
    "PROXY_ROUTE_<NAME>_KEEPALIVE":
      "false: every call of route NAME goes on a new connection, closed after its response (for an upstream that cannot be trusted to frame its responses). Default true",
  },
  check(settings, _failed, env) {
    if (settings.PROXY_ROUTES === undefined) return [];
    return [
      ...readRouteAdditions(env, settings.PROXY_ROUTES).problems,
      ...readRouteRateLimits(env, settings.PROXY_ROUTES).problems,
      ...readRouteKeepAlive(env, settings.PROXY_ROUTES).problems,
    ];
  },
  series: (registry) => {
    proxyMetrics(registry);
  },
  start(settings, { log, env, metrics }) {
    const { additions, problems } = readRouteAdditions(
      env,
      settings.PROXY_ROUTES,
    );
    // Checked at start-up already; a file can still change in between.
    if (problems.length > 0) throw new Error(problems.join("; "));
    const { perClient, upstream } = readRouteRateLimits(
      env,
      settings.PROXY_ROUTES,
    );
    const proxy = outboundProxyOf(settings, env);
    if (proxy) log.info(outboundProxyText(proxy));
    const client = createHttp1Client({
      proxy,
      maxDecodedBytes: settings.PROXY_MAX_RESPONSE_BYTES,
    });
    const app = createProxyApp({
      routes: settings.PROXY_ROUTES,
      http1: client,
      log,
      allowOrigin: settings.PROXY_ALLOW_ORIGIN,
      timeoutMs: settings.PROXY_TIMEOUT_MS,
      maxResponseBytes: settings.PROXY_MAX_RESPONSE_BYTES,
      privateHeaders: settings.PROXY_PRIVATE_HEADERS,
      keepAliveOff: readRouteKeepAlive(env, settings.PROXY_ROUTES).off,
      additions,
      cacheMs: settings.PROXY_CACHE_MS,
      cacheMaxBytes: settings.PROXY_CACHE_MAX_BYTES,
      rateLimits: {
        limit: settings.PROXY_RATE_LIMIT,
        perClient,
        upstream,
        maxClients: settings.PROXY_RATE_LIMIT_MAX_CLIENTS,
        trustedProxies: settings.PROXY_TRUSTED_PROXIES,
        by: settings.PROXY_RATE_LIMIT_BY,
      },
      requireHeader: settings.PROXY_REQUIRE_HEADER,
      removeHeaders: settings.PROXY_REMOVE_HEADERS,
      metrics,
    });
    let server: RunningServer;
    try {
      server = serveApp(app, {
        ...listenAt("PROXY", settings),
        headers: corsHeaders(fallbackOrigin(settings.PROXY_ALLOW_ORIGIN)),
        // A failed response's error may quote what an upstream echoed of a route's
        // added values: masked like the app's lines.
        log: additions.size > 0
          ? createAdditionsApplier(additions).log(log)
          : log,
        name: "proxy",
      });
    } catch (error) {
      client.close();
      throw error;
    }
    for (const route of settings.PROXY_ROUTES) {
      const added = additions.get(route.name);
      const adds = added === undefined ? "" : ` (adding ${
        [
          ...added.query.map(([name]) => `parameter ${name}`),
          ...added.headers.map(([name]) => `header ${name}`),
        ].join(", ")
      })`;
      log.info(`proxy route /${route.name} -> ${route.base}${adds}`);
    }
    for (const line of rateLimitLines(settings, perClient, upstream)) {
      log.info(line);
    }
    if (settings.PROXY_CACHE_MS > 0) {
      log.info(
        `proxy cache: ${settings.PROXY_CACHE_MS} ms, at most ${settings.PROXY_CACHE_MAX_BYTES} bytes`,
      );
    }
    return Promise.resolve({
      async stop() {
        await server.stop();
        client.close();
      },
    });
  },
});

/** The start-up lines of the rate limits in force. */
function rateLimitLines(
  settings: {
    PROXY_ROUTES: readonly { name: string }[];
    PROXY_RATE_LIMIT: RateLimit | undefined;
    PROXY_RATE_LIMIT_BY: string;
  },
  perClient: ReadonlyMap<string, RateLimit | null>,
  upstream: ReadonlyMap<string, RateLimit>,
): string[] {
  const lines: string[] = [];
  for (const { name } of settings.PROXY_ROUTES) {
    const own = perClient.get(name);
    const client = own === undefined ? settings.PROXY_RATE_LIMIT : own;
    const ceiling = upstream.get(name);
    const parts = [
      ...client
        ? [`${client.text} per client ${settings.PROXY_RATE_LIMIT_BY}`]
        : [],
      ...ceiling ? [`${ceiling.text} upstream requests for all clients`] : [],
    ];
    if (parts.length > 0) {
      lines.push(`proxy rate limit of /${name}: ${parts.join(", ")}`);
    }
  }
  return lines;
}
