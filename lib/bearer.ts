/**
 * The one bearer-token rule of the roles that take a token from their clients.
 *
 * @module
 */
import type { Context, MiddlewareHandler } from "hono";
import { createTokenCheck } from "./token_check.ts";

/**
 * How strictly the `Authorization` value is read:
 * - `"exact"`: exactly `Bearer <token>`, the scheme spelt `Bearer` and one space;
 * - `"any-case"`: as RFC 9110 (section 11.1) reads it, the scheme in any case and
 *   one or more spaces before the token.
 */
export type BearerSchemeCase = "exact" | "any-case";

/**
 * Returns a check of an `Authorization` header value: true only when it carries the
 * bearer `token` under the `schemeCase` rule. The token is compared in constant time
 * (see {@linkcode createTokenCheck}: only whether its length is right could show).
 *
 * @example
 * ```ts
 * import { createBearerCheck } from "./bearer.ts";
 *
 * const exact = createBearerCheck("s3cret", "exact");
 * exact("Bearer s3cret"); // true
 * exact("bearer s3cret"); // false
 * const anyCase = createBearerCheck("s3cret", "any-case");
 * anyCase("bearer  s3cret"); // true
 * ```
 */
export function createBearerCheck(
  token: string,
  schemeCase: BearerSchemeCase,
): (header: string | null | undefined) => boolean {
  const isToken = createTokenCheck(token);
  if (schemeCase === "exact") {
    return (header) =>
      !!header?.startsWith("Bearer ") && isToken(header.slice(7));
  }
  return (header) => {
    const match = /^Bearer +(\S+)\s*$/i.exec(header ?? "");
    return match !== null && isToken(match[1]!);
  };
}

/** Options of {@linkcode requireBearer}. */
export interface RequireBearerOptions {
  /** The token clients must send. */
  token: string;
  /** How strictly the header is read (see {@linkcode BearerSchemeCase}). */
  schemeCase: BearerSchemeCase;
  /** The realm named in `WWW-Authenticate`. @default none */
  realm?: string;
  /**
   * The response to a request without the token.
   * @default 401 `{"message": "Missing or invalid token: send Authorization: Bearer <token>"}`
   */
  unauthorized?: (c: Context) => Response;
}

/**
 * Middleware responding 401 (with `WWW-Authenticate: Bearer`) unless the request
 * carries the bearer token; the next handler runs otherwise.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { requireBearer } from "./bearer.ts";
 *
 * const app = new Hono();
 * app.post("/items", requireBearer({ token: "s3cret", schemeCase: "any-case" }));
 * app.post("/items", (c) => c.json({ ok: true }, 201));
 * const response = await app.request("/items", { method: "POST" });
 * response.status; // 401
 * ```
 */
export function requireBearer(
  options: RequireBearerOptions,
): MiddlewareHandler {
  const isValid = createBearerCheck(options.token, options.schemeCase);
  const challenge = options.realm === undefined
    ? "Bearer"
    : `Bearer realm="${options.realm}"`;
  const unauthorized = options.unauthorized ?? ((c: Context) =>
    c.json(
      {
        message: "Missing or invalid token: send Authorization: Bearer <token>",
      },
      401,
    ));
  return async function requireBearerMiddleware(c, next) {
    if (!isValid(c.req.header("authorization"))) {
      const response = unauthorized(c);
      response.headers.set("www-authenticate", challenge);
      return response;
    }
    await next();
  };
}
