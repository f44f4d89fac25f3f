/**
 * CORS for a Hono app: which pages on other origins may read its responses.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import type { AllowedOrigins } from "./allow_origin.ts";
import { preview } from "./preview.ts";

/** What {@linkcode cors} allows. */
export interface CorsOptions {
  /** `*`, or the exact origins (as browsers send them in `Origin`) allowed. */
  allowed: AllowedOrigins;
  /** The methods a preflight allows (`GET`, `HEAD` and `POST` need none). */
  methods: readonly string[];
  /** The request headers a preflight allows (`Authorization`, `Content-Type`). */
  headers: readonly string[];
  /** The response headers a page may read besides the safelisted ones. */
  expose: readonly string[];
  /** How long, in seconds, a browser may cache a preflight response. @default 86400 */
  maxAgeSeconds?: number;
  /** The setting that lists the origins, named in the 403 to another origin. */
  setting: string;
}

/**
 * Middleware for cross-origin pages. A request from an allowed origin gets
 * `Access-Control-Allow-Origin` (the origin itself, with `Vary: Origin`, for a
 * list; `*` for `*`) and `Access-Control-Expose-Headers`; its preflight (`OPTIONS`
 * with `Access-Control-Request-Method`) gets 204 with the allowed methods,
 * headers and max age. A request from another origin gets no CORS header (the
 * browser keeps the response from the page) and its preflight 403. A request
 * without `Origin` (not from a browser page) passes untouched.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 *
 * const app = new Hono();
 * app.use(cors({
 *   allowed: ["http://localhost:5173"],
 *   methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
 *   headers: ["Authorization", "Content-Type"],
 *   expose: ["X-Total-Count", "Link", "ETag"],
 *   setting: "MESSAGES_ALLOW_ORIGIN",
 * }));
 * ```
 */
export function cors(options: CorsOptions): MiddlewareHandler {
  const { allowed } = options;
  const listed = allowed === "*" ? undefined : new Set(allowed);
  const methods = options.methods.join(", ");
  const headers = options.headers.join(", ");
  const exposed = options.expose.join(", ");
  const maxAge = String(options.maxAgeSeconds ?? 86_400);
  return async (c, next) => {
    const origin = c.req.header("origin");
    if (origin === undefined) return await next();
    const allows = listed === undefined || listed.has(origin);
    const allowOrigin = listed === undefined ? "*" : origin;
    if (
      c.req.method === "OPTIONS" &&
      c.req.header("access-control-request-method") !== undefined
    ) {
      if (!allows) {
        return c.json(
          {
            message: `Origin "${
              preview(origin, 200)
            }" is not allowed: ${options.setting} does not list it`,
          },
          403,
          { vary: "Origin" },
        );
      }
      const response = new Response(null, {
        status: 204,
        headers: {
          "access-control-allow-origin": allowOrigin,
          "access-control-allow-methods": methods,
          "access-control-allow-headers": headers,
          "access-control-max-age": maxAge,
        },
      });
      if (listed !== undefined) response.headers.set("vary", "Origin");
      return response;
    }
    await next();
    const responseHeaders = c.res.headers;
    if (listed !== undefined) responseHeaders.append("vary", "Origin");
    if (!allows) return;
    responseHeaders.set("access-control-allow-origin", allowOrigin);
    if (exposed) responseHeaders.set("access-control-expose-headers", exposed);
  };
}
