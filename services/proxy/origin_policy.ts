/**
 * Which pages may read the proxy's responses: with `PROXY_ALLOW_ORIGIN=*` every one;
 * with a list, a request from a listed origin gets that origin back in
 * `Access-Control-Allow-Origin`, one from another origin a 403 without any upstream
 * call, and one without `Origin` (not from a browser) is served as before.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { preview } from "../../lib/preview.ts";
import type { AllowedOrigins } from "../../lib/allow_origin.ts";
import { fallbackOrigin, setAllowOrigin } from "./cors.ts";

/** The origin rule of the proxy. */
export interface OriginPolicy {
  /**
   * `Access-Control-Allow-Origin` of responses not tied to a client's origin (and the
   * relay's until {@linkcode apply} sets the client's): `*`, or the first listed
   * origin.
   */
  readonly fallback: string;
  /** The 403 for a request whose `Origin` is not listed, else `undefined`. */
  refuse(request: Request): Response | undefined;
  /**
   * `response` for `request`: with a list, `Access-Control-Allow-Origin` names the
   * client's origin when it is listed, and `Vary` names `Origin`. Changes it in place when it
   * can.
   */
  apply(request: Request, response: Response): Response;
}

/**
 * Returns the policy of `allowed`.
 *
 * @example
 * ```ts
 * const policy = createOriginPolicy(["https://app.example.com"]);
 * async function handle(request: Request, relay: (r: Request) => Promise<Response>) {
 *   const refused = policy.refuse(request);
 *   if (refused) return refused;
 *   return policy.apply(request, await relay(request));
 * }
 * ```
 */
export function createOriginPolicy(allowed: AllowedOrigins): OriginPolicy {
  if (allowed === "*") {
    return {
      fallback: fallbackOrigin(allowed),
      refuse: () => undefined,
      apply: (_request, response) => response,
    };
  }
  const listed = new Set(allowed);
  return {
    fallback: fallbackOrigin(allowed),
    refuse(request) {
      const origin = request.headers.get("origin");
      if (origin === null || listed.has(origin)) return undefined;
      return Response.json({
        message: `Origin "${
          preview(origin, 200)
        }" is not allowed: PROXY_ALLOW_ORIGIN does not list it`,
      }, { status: 403, headers: { vary: "Origin" } });
    },
    apply(request, response) {
      const given = request.headers.get("origin");
      const origin = given !== null && listed.has(given) ? given : null;
      let target = response;
      try {
        setOrigin(target.headers, origin);
      } catch {
        // A fetch response's headers are immutable: copy them.
        target = new Response(response.body, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
        setOrigin(target.headers, origin);
      }
      return target;
    },
  };
}

function setOrigin(headers: Headers, origin: string | null): void {
  if (origin !== null) setAllowOrigin(headers, origin);
  const vary = headers.get("vary");
  if (vary === null) headers.set("vary", "Origin");
  else if (
    !vary.split(",").some((name) => /^(origin|\*)$/i.test(name.trim()))
  ) {
    headers.set("vary", `${vary}, Origin`);
  }
}

/**
 * Middleware applying `policy` to every request and response; `onRefused` is told
 * of each request refused (the metrics).
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 *
 * const app = new Hono();
 * app.use(originRule(createOriginPolicy(["https://a.example"])));
 * app.get("/x", (c) => c.text("x"));
 * const refused = await app.request("/x", { headers: { origin: "https://b.example" } });
 * refused.status; // 403
 * ```
 */
export function originRule(
  policy: OriginPolicy,
  onRefused?: () => void,
): MiddlewareHandler {
  return async function originRuleMiddleware(c, next) {
    const refused = policy.refuse(c.req.raw);
    if (refused) {
      onRefused?.();
      return refused;
    }
    await next();
    const applied = policy.apply(c.req.raw, c.res);
    if (applied !== c.res) {
      // A copy (the response's headers were immutable): Hono would merge the old
      // response's headers into it, the old Access-Control-Allow-Origin included.
      c.res = undefined;
      c.res = applied;
    }
  };
}
