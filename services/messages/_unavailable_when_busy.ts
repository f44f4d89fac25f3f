/**
 * The answer of the `messages` role when the database cannot answer now.
 *
 * @module
 */
import { HTTPException } from "hono/http-exception";
import { errorText, type Log } from "../../lib/log.ts";
import {
  type MessageStore,
  MessageStoreBusyError,
  MessageStoreUnavailableError,
} from "./message_store.ts";

/** What the client reads in the 503 body when another writer holds the lock. */
const BUSY_MESSAGE =
  "Database busy: it is locked by another writer, try again in a second";

/**
 * Returns `store` with every {@linkcode MessageStoreUnavailableError} logged at
 * WARNING (a lock held elsewhere or a database restarting is an expected
 * condition, not a fault of this process) and turned into an `HTTPException`
 * answering 503 with `Retry-After` and a JSON `{"message": ...}` body: for
 * {@linkcode MessageStoreBusyError} the lock message with `Retry-After: 1`, for
 * the others the error's message and "try again in a few seconds" with
 * `Retry-After: 2`. Other errors, and results, pass unchanged, synchronous or not.
 */
export function unavailableWhenBusy(
  store: MessageStore,
  log: Log,
): MessageStore {
  const translate = (name: string, error: unknown): never => {
    if (!(error instanceof MessageStoreUnavailableError)) throw error;
    log.warn(
      `${name} answered 503, the client may retry: ${errorText(error)}`,
    );
    const busy = error instanceof MessageStoreBusyError;
    const message = busy
      ? BUSY_MESSAGE
      : `${error.message}, try again in a few seconds`;
    throw new HTTPException(503, {
      message,
      cause: error,
      res: Response.json({ message }, {
        status: 503,
        headers: { "retry-after": busy ? "1" : "2" },
      }),
    });
  };
  const guard = <A extends unknown[], R>(
    name: string,
    call: (...args: A) => R,
  ) =>
  (...args: A): R => {
    try {
      const result = call(...args);
      if (result instanceof Promise) {
        return result.catch((error) => translate(name, error)) as R;
      }
      return result;
    } catch (error) {
      return translate(name, error);
    }
  };
  return {
    list: guard("list", store.list.bind(store)),
    query: guard("query", store.query.bind(store)),
    get: guard("get", store.get.bind(store)),
    create: guard("create", store.create.bind(store)),
    update: guard("update", store.update.bind(store)),
    delete: guard("delete", store.delete.bind(store)),
    revision: guard("revision", store.revision.bind(store)),
    close: () => store.close(),
  };
}
