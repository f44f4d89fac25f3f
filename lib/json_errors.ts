/**
 * The error handler of every HTTP role: errors returned as `{"message": ...}`.
 *
 * @module
 */
import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { measuredHead } from "./head_length.ts";
import { errorText, type Log } from "./log.ts";

/**
 * Returns the error handler (`app.onError`): an `HTTPException` returns its status
 * with `{"message": ...}` (its message, or the status's text), or its own response
 * when it carries one (`res`: an empty body, for instance); anything else is logged
 * at ERROR to `log` and returns a generic 500. A response to HEAD carries its
 * length (see `head_length.ts`).
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { HTTPException } from "hono/http-exception";
 * import { jsonErrors } from "./json_errors.ts";
 * import { createLog } from "./log.ts";
 *
 * const app = new Hono().onError(jsonErrors(createLog("example")));
 * app.get("/teapot", () => {
 *   throw new HTTPException(418, { message: "I am a teapot" });
 * });
 * const response = await app.request("/teapot");
 * await response.json(); // { message: "I am a teapot" }
 * ```
 */
export function jsonErrors(log: Log): ErrorHandler {
  return function jsonErrorHandler(error: Error, c: Context) {
    if (error instanceof HTTPException) {
      const response = error.res ? error.getResponse() : c.json(
        { message: error.message || statusText(error.status) },
        error.status,
      );
      return measuredHead(c.req.method, response);
    }
    log.error(`${c.req.method} ${c.req.path} failed: ${errorText(error)}`);
    return measuredHead(
      c.req.method,
      c.json({ message: "Internal server error" }, 500),
    );
  };
}

function statusText(status: number): string {
  return {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    413: "Request body too large",
  }[status] ?? `HTTP ${status}`;
}
