/**
 * The proxy's response cache (`PROXY_CACHE_MS`): a layer around the upstream request that
 * keeps 200 responses to GET requests in memory, keyed by route, full target URL and
 * the request headers the response varies on, so repeated calls spare the upstream (and
 * its quota). Concurrent misses for one key make one upstream request.
 *
 * @module
 */
import { ageSeconds, freshness } from "./_cache_control.ts";
import { createResponseStore, type StoredResponse } from "./_response_store.ts";
import type { CacheEvents } from "./proxy_metrics.ts";
import { collected } from "./_collected_body.ts";
import { exposeOn } from "./cors.ts";
import type { ProxyRoute } from "./routes.ts";
import type { CountedRequest } from "./relay.ts";

/**
 * An upstream request: `request` relayed to `target` within `route`; `counting`, the
 * request as the rate limits counted it, goes on to the relay, which puts its headers
 * on the response.
 */
export type RouteUpstream = (
  request: Request,
  route: ProxyRoute,
  target: string | URL,
  counting?: CountedRequest,
) => Promise<Response>;

/** Options of {@linkcode createResponseCache}. */
export interface ResponseCacheOptions {
  /** Longest time a response is kept, in ms (the upstream's `max-age` may shorten it). */
  ttlMs: number;
  /** Bound on the bytes of the stored bodies (their keys and headers get as many again); a body over a sixteenth of it is not stored. */
  maxBytes: number;
  /** The clock. @default Date.now */
  now?: () => number;
  /**
   * Whether the route itself adds an `Authorization` header, so one the cache sees
   * is the proxy's own, not the client's. @default none does
   */
  addsAuthorization?: (route: ProxyRoute) => boolean;
  /**
   * The value of request header `name` (lower case) as the upstream gets it, for the
   * headers a response varies on. @default the client's
   */
  headerValue?: (
    request: Request,
    route: ProxyRoute,
    name: string,
  ) => string | null;
  /** Told of hits, misses and the bytes held (the proxy's metrics). @default none */
  events?: CacheEvents;
  /**
   * Whether `request` is one client's own (it carries `Cookie` or a header of
   * `PROXY_PRIVATE_HEADERS`): its response is neither stored nor served from the
   * cache. @default none is
   */
  isPrivate?: (request: Request, route: ProxyRoute) => boolean;
  /**
   * Response headers (lower case) that belong to one client, set on every response
   * by the caller of the cache (the rate limits' `RateLimit`): never stored, so a hit
   * carries none of another client's. @default none
   */
  unstored?: readonly string[];
}

const X_CACHE = "x-cache";

/**
 * Returns `call` behind the cache, which keeps and serves GET responses as the
 * proxy's page states (`docs/proxy.md#response-cache`: what is kept, for how long,
 * within which bound of bytes, `X-Cache` and `Age`).
 *
 * @example
 * ```ts
 * import type { ProxyRoute } from "./routes.ts";
 *
 * declare const relay: RouteUpstream, request: Request, route: ProxyRoute;
 * const cached = createResponseCache(relay, { ttlMs: 60_000, maxBytes: 16 << 20 });
 * const response = await cached(request, route, "https://example.com/v1/users");
 * ```
 */
export function createResponseCache(
  call: RouteUpstream,
  options: ResponseCacheOptions,
): RouteUpstream {
  const now = options.now ?? Date.now;
  const store = createResponseStore(options.maxBytes);
  const entryLimit = Math.floor(options.maxBytes / 16);
  const unstored = options.unstored ?? [];
  /** Misses under way, by key: resolve with the stored entry, if it was stored. */
  const flights = new Map<string, Promise<StoredResponse | undefined>>();

  const headerValue = options.headerValue ??
    ((request: Request, _route: ProxyRoute, name: string) =>
      request.headers.get(name));
  const keyOf = (
    primary: string,
    vary: readonly string[],
    request: Request,
    route: ProxyRoute,
  ) =>
    vary.length === 0
      ? primary
      : `${primary}\n${
        vary.map((name) =>
          `${name}: ${headerValue(request, route, name) ?? ""}`
        )
          .join("\n")
      }`;

  /** Calls the upstream and stores the response when it may; `flight` hears the outcome. */
  const miss = async (
    request: Request,
    route: ProxyRoute,
    target: string | URL,
    counting: CountedRequest | undefined,
    primary: string,
    settle: (entry: StoredResponse | undefined) => void,
  ): Promise<Response> => {
    let response: Response;
    try {
      response = await call(request, route, target, counting);
    } catch (error) {
      settle(undefined);
      throw error;
    }
    const plan = storagePlan(request, route, response);
    if (plan === undefined) {
      settle(undefined);
      return marked(response, "MISS", response.headers.get("age") ?? "0");
    }
    const headers: [string, string][] = [...response.headers]
      .filter(([name]) =>
        name !== "age" && name !== X_CACHE && !unstored.includes(name)
      );
    exposeOn(headers, ["age", X_CACHE], { onlyIfListed: true });
    const storedAt = now();
    const keep = (bytes: Uint8Array<ArrayBuffer> | undefined) => {
      if (bytes === undefined) return settle(undefined);
      const entry: StoredResponse = {
        key: keyOf(primary, plan.vary, request, route),
        primary,
        vary: plan.vary,
        status: response.status,
        statusText: response.statusText,
        headers,
        body: bytes,
        storedAt,
        expiresAt: storedAt + plan.keepMs,
        upstreamAge: plan.upstreamAge,
      };
      store.put(entry);
      options.events?.held(store.bytes);
      settle(entry);
    };
    const body = response.body === null
      ? null
      : collected(response.body, entryLimit, keep);
    if (body === null) keep(new Uint8Array(0));
    const relayed = new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    return marked(relayed, "MISS", String(plan.upstreamAge));
  };

  /** How to store `response`, or `undefined` when it is not stored. */
  const storagePlan = (
    request: Request,
    route: ProxyRoute,
    response: Response,
  ) => {
    if (response.status !== 200) return undefined;
    const upstreamAge = ageSeconds(response.headers.get("age"));
    if (upstreamAge === undefined) return undefined;
    const fresh = freshness(
      response.headers.get("cache-control"),
      upstreamAge,
      options.ttlMs,
    );
    if (fresh.keepMs <= 0) return undefined;
    if (
      request.headers.has("authorization") && !fresh.shared &&
      !options.addsAuthorization?.(route)
    ) return undefined;
    const vary = (response.headers.get("vary") ?? "").split(",")
      .map((name) => name.trim().toLowerCase()).filter(Boolean);
    if (vary.includes("*")) return undefined;
    const length = Number(response.headers.get("content-length") ?? 0);
    if (length > entryLimit) return undefined;
    return {
      keepMs: fresh.keepMs,
      upstreamAge,
      vary: [...new Set(vary)].sort(),
    };
  };

  /** `response`, a hit of `entry`, told to the events. */
  const counted = (
    response: Response,
    route: ProxyRoute,
    entry: StoredResponse,
  ) => {
    options.events?.hit(route.name, entry.body.byteLength);
    return response;
  };

  const hit = (entry: StoredResponse): Response => {
    const age = entry.upstreamAge +
      Math.floor(Math.max(0, now() - entry.storedAt) / 1000);
    const response = new Response(entry.body, {
      status: entry.status,
      statusText: entry.statusText,
    });
    // Appending one by one costs a tenth of passing the list to the constructor.
    const headers = response.headers;
    for (const [name, value] of entry.headers) headers.append(name, value);
    headers.append("age", String(age));
    headers.append(X_CACHE, "HIT");
    return response;
  };

  return async function cached(request, route, target, counting) {
    const primary = `${route.name} ${
      typeof target === "string" ? target : target.href
    }`;
    if (request.method === "GET" && options.isPrivate?.(request, route)) {
      const response = await call(request, route, target, counting);
      return marked(response, "BYPASS", response.headers.get("age") ?? "0");
    }
    if (request.method !== "GET") {
      const response = await call(request, route, target, counting);
      if (request.method !== "HEAD" && response.status < 400) {
        store.invalidate(primary);
      }
      return response;
    }
    const key = keyOf(primary, store.varyOf(primary) ?? [], request, route);
    const found = store.get(key, now());
    if (found !== undefined) return counted(hit(found), route, found);
    const flight = flights.get(key);
    if (flight !== undefined) {
      const entry = await flight;
      // The entry may vary on a header this client sent differently.
      if (
        entry !== undefined &&
        keyOf(primary, entry.vary, request, route) === entry.key
      ) return counted(hit(entry), route, entry);
      options.events?.miss(route.name);
      return miss(request, route, target, counting, primary, () => {});
    }
    options.events?.miss(route.name);
    const outcome = Promise.withResolvers<StoredResponse | undefined>();
    flights.set(key, outcome.promise);
    return miss(request, route, target, counting, primary, (entry) => {
      if (flights.get(key) === outcome.promise) flights.delete(key);
      outcome.resolve(entry);
    });
  };
}

/** `response` with `X-Cache` and `Age`, and a listed `Access-Control-Expose-Headers` naming them. */
function marked(response: Response, state: string, age: string): Response {
  let target = response;
  try {
    target.headers.set(X_CACHE, state);
  } catch {
    target = new Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    target.headers.set(X_CACHE, state);
  }
  target.headers.set("age", age);
  exposeOn(target.headers, ["age", X_CACHE], { onlyIfListed: true });
  return target;
}
