/**
 * The one place where the failures of the `messages` store become status codes.
 *
 * @module
 */
import type { Context, ErrorHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { jsonErrors } from "../../lib/json_errors.ts";
import { errorText, type Log } from "../../lib/log.ts";
import {
  MessageIdsExhaustedError,
  MessageStoreBusyError,
  MessageStoreUnavailableError,
} from "./message_store.ts";

/** What the client reads in the 503 body when another writer holds the lock. */
const BUSY_MESSAGE =
  "Database busy: it is locked by another writer, try again in a second";

/**
 * Returns the error handler (`app.onError`) of the `messages` app: the store's
 * failures get their status, everything else is handled as every role does
 * (`jsonErrors`).
 *
 * - {@linkcode MessageStoreBusyError}: 503, `Retry-After: 1`, the lock message;
 * - {@linkcode MessageStoreUnavailableError}: 503, `Retry-After: 2`, the error's
 *   message and "try again in a few seconds";
 * - {@linkcode MessageIdsExhaustedError}: 507 with the error's message.
 *
 * A 503 is logged at WARNING (a lock held elsewhere or a database restarting is
 * an expected condition, not a fault of this process), a 507 at ERROR.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { createLog } from "../../lib/log.ts";
 * import { MessageStoreBusyError } from "./message_store.ts";
 *
 * const app = new Hono().onError(storeErrors(createLog("messages")));
 * app.get("/", () => {
 *   throw new MessageStoreBusyError();
 * });
 * (await app.request("/")).status; // 503
 * ```
 */
export function storeErrors(log: Log): ErrorHandler {
  const others = jsonErrors(log);
  return function storeErrorHandler(error: Error, c: Context) {
    return others(asHttpException(error, c, log) ?? error, c);
  };
}

function asHttpException(
  error: Error,
  c: Context,
  log: Log,
): HTTPException | undefined {
  const request = `${c.req.method} ${c.req.path}`;
  if (error instanceof MessageIdsExhaustedError) {
    log.error(`${request} responded 507: ${error.message}`);
    return new HTTPException(507, { message: error.message, cause: error });
  }
  const busy = error instanceof MessageStoreBusyError;
  if (!busy && !(error instanceof MessageStoreUnavailableError)) {
    return undefined;
  }
  log.warn(
    `${request} responded 503, the client may retry: ${errorText(error)}`,
  );
  const message = busy
    ? BUSY_MESSAGE
    : `${error.message}, try again in a few seconds`;
  return new HTTPException(503, {
    message,
    cause: error,
    res: Response.json({ message }, {
      status: 503,
      headers: { "retry-after": busy ? "1" : "2" },
    }),
  });
}
