/**
 * The optional write token of the `messages` role.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";
import { createHash, timingSafeEqual } from "node:crypto";

/**
 * Middleware answering 401 unless the request carries `Authorization: Bearer <token>`.
 * The comparison takes the same time whatever the value sent (both sides are hashed
 * to a fixed length first, then compared in constant time).
 */
export function requireToken(token: string): MiddlewareHandler {
  const expected = digest(token);
  return async function requireTokenMiddleware(c, next) {
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    const given = digest(match?.[1] ?? "");
    if (!match || !timingSafeEqual(given, expected)) {
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

function digest(value: string): Uint8Array {
  return createHash("sha256").update(value).digest();
}
