/**
 * The HTTP app of a role: a Hono app with what every role serves (health check,
 * JSON errors, 404 and 405 with `Allow`). The rest is composed with `app.use` by
 * the roles that need it (`head_length.ts`, `limit_body.ts`), or called inside a
 * route where a middleware would cost speed (`body_text.ts`,
 * `measuredHead`). `serve.ts` serves it.
 *
 * @module
 */
import { Hono } from "hono";
import { healthCheck } from "./health_check.ts";
import { jsonErrors } from "./json_errors.ts";
import type { Log } from "./log.ts";
import { unrouted } from "./unrouted.ts";

/** Dependencies of {@linkcode createHttpApp}. */
export interface HttpAppOptions {
  /** Where unexpected errors are logged. */
  log: Log;
}

/**
 * Returns a Hono app with `GET /healthz` (`health_check.ts`), JSON error bodies
 * `{"message": ...}` for `HTTPException`s and a logged 500 for anything else
 * (`json_errors.ts`), and 405 with `Allow` for another method on a path that has
 * routes of its own, else 404 (`unrouted.ts`). Its own responses to HEAD carry their
 * length; routes get that rule from `headLength()` (`head_length.ts`).
 *
 * Throw `new HTTPException(status, { message })` from a handler to respond with an error;
 * pass `res` instead to respond with a body of your own (an empty one, for instance).
 *
 * @example
 * ```ts
 * import { createLog } from "./log.ts";
 *
 * const app = createHttpApp({ log: createLog("hello") });
 * app.get("/hello", (c) => c.json({ hello: "world" }));
 * const response = await app.request("/hello");
 * await response.json(); // { hello: "world" }
 * ```
 */
export function createHttpApp(options: HttpAppOptions): Hono {
  const app = new Hono();
  app.get("/healthz", healthCheck);
  app.notFound(unrouted(app));
  app.onError(jsonErrors(options.log));
  return app;
}
