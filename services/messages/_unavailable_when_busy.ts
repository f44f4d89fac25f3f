/**
 * The answer of the `messages` role when another writer holds the database.
 *
 * @module
 */
import { HTTPException } from "hono/http-exception";
import { errorText, type Log } from "../../lib/log.ts";
import { type MessageStore, MessageStoreBusyError } from "./message_store.ts";

/** What the client reads in the 503 body. */
const BUSY_MESSAGE =
  "Database busy: it is locked by another writer, try again in a second";

/**
 * Returns `store` with every {@linkcode MessageStoreBusyError} logged at WARNING
 * (a lock held elsewhere is an expected condition, not a fault of this process)
 * and turned into an `HTTPException` answering 503 with `Retry-After: 1` and a
 * JSON `{"message": ...}` body. Other errors pass unchanged.
 */
export function unavailableWhenBusy(
  store: MessageStore,
  log: Log,
): MessageStore {
  const guard = <A extends unknown[], R>(
    name: string,
    call: (...args: A) => R,
  ) =>
  (...args: A): R => {
    try {
      return call(...args);
    } catch (error) {
      if (!(error instanceof MessageStoreBusyError)) throw error;
      log.warn(
        `${name} answered 503, the client may retry: ${errorText(error)}`,
      );
      throw new HTTPException(503, {
        message: BUSY_MESSAGE,
        cause: error,
        res: Response.json({ message: BUSY_MESSAGE }, {
          headers: { "retry-after": "1" },
        }),
      });
    }
  };
  return {
    list: guard("list", store.list.bind(store)),
    get: guard("get", store.get.bind(store)),
    create: guard("create", store.create.bind(store)),
    update: guard("update", store.update.bind(store)),
    delete: guard("delete", store.delete.bind(store)),
    revision: guard("revision", store.revision.bind(store)),
    close: () => store.close(),
  };
}
