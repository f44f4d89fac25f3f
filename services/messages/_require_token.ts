/**
 * The optional write token of the `messages` role.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { createTokenCheck } from "../../lib/token_check.ts";

/**
 * Middleware answering 401 unless the request carries `Authorization: Bearer <token>`
 * (scheme in any case, as RFC 7235 has it). The token is compared in constant time
 * (see `createTokenCheck`: only whether its length is right could show).
 */
export function requireToken(token: string): MiddlewareHandler {
  const isToken = createTokenCheck(token);
  return async function requireTokenMiddleware(c, next) {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match || !isToken(match[1]!)) {
      return c.json(
        {
          message:
            "Missing or invalid token: send Authorization: Bearer <token>",
        },
        401,
        { "www-authenticate": 'Bearer realm="messages"' },
      );
    }
    await next();
  };
}
