/**
 * The proxy's CORS headers, all written here: `Access-Control-Allow-Origin` on
 * every response, `Access-Control-Expose-Headers` on relayed ones, and the
 * preflight's. Plain functions, called where the responses are made: a middleware
 * would take every relayed request off Hono's one-handler path. Which origin a
 * request gets is the origin rule's (`origin_policy.ts`).
 *
 * @module
 */
import type { AllowedOrigins } from "../../lib/allow_origin.ts";

const ALLOW_ORIGIN = "access-control-allow-origin";
const EXPOSE_HEADERS = "access-control-expose-headers";

/** How long a browser may cache a preflight response, in seconds. */
const PREFLIGHT_MAX_AGE = 86_400;

/**
 * The `Access-Control-Allow-Origin` of responses not tied to a client's origin:
 * `*`, or the first listed origin (`null` for an empty list).
 *
 * @example
 * ```ts
 * fallbackOrigin("*"); // "*"
 * fallbackOrigin(["https://a.example", "https://b.example"]); // "https://a.example"
 * ```
 */
export function fallbackOrigin(allowed: AllowedOrigins): string {
  return allowed === "*" ? "*" : allowed[0] ?? "null";
}

/**
 * The CORS headers of the proxy's own responses (health check, 404, 405, 400, 502,
 * errors, the 503 while stopping).
 *
 * @example
 * ```ts
 * corsHeaders("*"); // { "access-control-allow-origin": "*" }
 * ```
 */
export function corsHeaders(allowOrigin: string): Record<string, string> {
  return { [ALLOW_ORIGIN]: allowOrigin };
}

/**
 * `response` with `Access-Control-Allow-Origin` unless it has one (its headers must
 * be mutable: one the app made).
 *
 * @example
 * ```ts
 * withCors(Response.json({ status: "ok" }), "*").headers.get("access-control-allow-origin"); // "*"
 * ```
 */
export function withCors(response: Response, allowOrigin: string): Response {
  if (!response.headers.has(ALLOW_ORIGIN)) {
    response.headers.set(ALLOW_ORIGIN, allowOrigin);
  }
  return response;
}

/**
 * Sets `Access-Control-Allow-Origin` to `origin` (the origin rule's choice for the
 * client).
 *
 * @example
 * ```ts
 * const headers = new Headers();
 * setAllowOrigin(headers, "https://a.example");
 * ```
 */
export function setAllowOrigin(headers: Headers, origin: string): void {
  headers.set(ALLOW_ORIGIN, origin);
}

/**
 * Whether header `name` (lower case) of a relayed response is the proxy's alone, so
 * the upstream's own is dropped: every CORS header (`Access-Control-*`). An
 * upstream's `Access-Control-Allow-Credentials: true` would let pages of the
 * allowed origin read responses made with the browser's credentials for the
 * proxy's host; the proxy's CORS headers are the only ones.
 *
 * @example
 * ```ts
 * setByProxy("access-control-allow-origin"); // true
 * setByProxy("access-control-allow-credentials"); // true
 * setByProxy("content-type"); // false
 * ```
 */
export function setByProxy(name: string): boolean {
  return name.startsWith("access-control-");
}

/**
 * The CORS pairs of a relayed response whose other pairs are `kept`:
 * `Access-Control-Allow-Origin`, and `Access-Control-Expose-Headers` so a page can
 * read the headers (`*`, or their names when the allowed origin is a single one,
 * for which `*` does not count with credentials).
 *
 * @example
 * ```ts
 * corsPairs([["x-total", "3"]], "https://a.example");
 * // [["access-control-allow-origin", "https://a.example"], ["access-control-expose-headers", "x-total"]]
 * ```
 */
export function corsPairs(
  kept: readonly [string, string][],
  allowOrigin: string,
): [string, string][] {
  const exposed = allowOrigin === "*" ? "*" : [
    ...new Set(
      kept.map(([name]) => name).filter((name) =>
        !name.startsWith("access-control-")
      ),
    ),
  ].sort().join(", ");
  const pairs: [string, string][] = [[ALLOW_ORIGIN, allowOrigin]];
  if (exposed) pairs.push([EXPOSE_HEADERS, exposed]);
  return pairs;
}

/** An `Access-Control-Expose-Headers` value that also names `names`. */
function alsoNaming(exposed: string, names: readonly string[]): string {
  if (exposed.trim() === "*") return exposed;
  const listed = exposed.split(",").map((name) => name.trim().toLowerCase());
  for (const name of names) {
    if (!listed.includes(name)) listed.push(name);
  }
  return listed.filter(Boolean).join(", ");
}

/**
 * The 204 response to a CORS preflight: the allowed origin and `methods`, the
 * request headers the client asked for, cacheable for a day.
 *
 * @example
 * ```ts
 * const request = new Request("http://proxy/api/x", { method: "OPTIONS" });
 * preflight(request, "*", ["GET", "POST", "OPTIONS"]).status; // 204
 * ```
 */
export function preflight(
  request: Request,
  allowOrigin: string,
  methods: readonly string[],
): Response {
  const headers = new Headers({
    [ALLOW_ORIGIN]: allowOrigin,
    "access-control-allow-methods": methods.join(", "),
    "access-control-max-age": String(PREFLIGHT_MAX_AGE),
    "vary": "Access-Control-Request-Headers",
  });
  const asked = request.headers.get("access-control-request-headers");
  if (asked) headers.set("access-control-allow-headers", asked);
  return new Response(null, { status: 204, headers });
}

/** Options of {@linkcode exposeOn}. */
export interface ExposeOptions {
  /**
   * Add the names only to a list already there (the cache's `Age` and `X-Cache`,
   * exposed only where the response exposes others). @default false
   */
  onlyIfListed?: boolean;
}

/**
 * Adds `names` (lower case) to the `Access-Control-Expose-Headers` of `headers`,
 * creating it when absent unless `onlyIfListed` (`*` is left alone): the rate-limit
 * headers, which a page must read on every response of a limited route, the proxy's
 * own included. `headers` is a `Headers` or a list of pairs (the list changed in
 * place, its pairs replaced rather than changed).
 *
 * @example
 * ```ts
 * const headers = new Headers(corsHeaders("https://a.example"));
 * exposeOn(headers, ["retry-after"]);
 * headers.get("access-control-expose-headers"); // "retry-after"
 * const listed = new Headers({ "access-control-expose-headers": "etag" });
 * exposeOn(listed, ["age"], { onlyIfListed: true });
 * listed.get("access-control-expose-headers"); // "etag, age"
 * ```
 */
export function exposeOn(
  headers: Headers | [string, string][],
  names: readonly string[],
  options: ExposeOptions = {},
): void {
  const create = !options.onlyIfListed;
  if (headers instanceof Headers) {
    const exposed = headers.get(EXPOSE_HEADERS);
    if (exposed === null) {
      if (create) headers.set(EXPOSE_HEADERS, names.join(", "));
    } else if (exposed.trim() !== "*") {
      headers.set(EXPOSE_HEADERS, alsoNaming(exposed, names));
    }
    return;
  }
  const at = headers.findIndex(([name]) => name === EXPOSE_HEADERS);
  if (at < 0) {
    if (create) headers.push([EXPOSE_HEADERS, names.join(", ")]);
  } else if (headers[at]![1].trim() !== "*") {
    headers[at] = [EXPOSE_HEADERS, alsoNaming(headers[at]![1], names)];
  }
}
