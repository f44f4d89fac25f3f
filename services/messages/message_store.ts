/**
 * The storage interface of the `messages` role, kept by SQLite or PostgreSQL.
 *
 * @module
 */
import type { MessageQuery } from "./list_query.ts";

/** What a list query returns. */
export interface MessagePage {
  /** How many records match, before paging. */
  total: number;
  /** The records of the page, in the order asked. */
  records: Message[];
}

/** The writable fields of a message record. */
export interface MessageFields {
  /** Who wrote the message. */
  author: string;
  /** The message text. */
  message: string;
}

/** A stored message record. */
export interface Message extends MessageFields {
  /** Primary key: on create, the highest id plus one (1 when there are no records). */
  id: number;
}

/**
 * Where message records are kept. Every method is atomic and asynchronous, except
 * {@linkcode MessageStore.revision}, which a cache asks before the store. A method
 * fails with {@linkcode MessageStoreUnavailableError},
 * {@linkcode MessageStoreBusyError} or {@linkcode MessageIdsExhaustedError} for the
 * failures a client may see; the app maps them to status codes in one place.
 */
export interface MessageStore {
  /**
   * Every record, by ascending id. A record whose id lies beyond
   * `Number.MAX_SAFE_INTEGER` either way (written by another tool) is left out: no
   * JSON client could read or name it exactly.
   */
  list(): Promise<Message[]>;
  /**
   * The records matching `query.filter` in `query.sort` order (ties by ascending
   * id), `query.offset` skipped and at most `query.limit` returned, with the number
   * of matches. Text compares by Unicode code point.
   */
  query(query: MessageQuery): Promise<MessagePage>;
  /** The record with `id`, or `undefined`. */
  get(id: number): Promise<Message | undefined>;
  /**
   * Stores a new record with id = highest id + 1 (1 when empty), atomically.
   * Throws {@linkcode MessageIdsExhaustedError}, storing nothing, when that id would
   * pass `Number.MAX_SAFE_INTEGER`.
   */
  create(fields: MessageFields): Promise<Message>;
  /**
   * Replaces the fields given of record `id`, atomically; `undefined` when there is
   * no such record.
   */
  update(
    id: number,
    fields: Partial<MessageFields>,
  ): Promise<Message | undefined>;
  /** Removes record `id`; `false` when there was no such record. */
  delete(id: number): Promise<boolean>;
  /**
   * A number that changes whenever the records may have changed, so a client of
   * the store can cache what it derives; synchronous, so a cached response costs no
   * promise. Writes through this store move it at once; writes through
   * another connection or process may show after a short delay the implementation
   * documents (1 ms for the SQLite store, the delivery of a notification for
   * PostgreSQL).
   */
  revision(): number;
  /** Releases the store; it cannot be used afterwards. */
  close(): Promise<void>;
}

/**
 * Thrown by a {@linkcode MessageStore} method when the database cannot respond now
 * (unreachable, restarting). Nothing was changed by the call, or it is not known to
 * have been: the client may retry. `message` is safe to show a client; the driver's
 * error is the `cause`. The app responds 503 with `Retry-After: 2`.
 *
 * @example
 * ```ts
 * const error = new MessageStoreUnavailableError(
 *   "Database unavailable: PostgreSQL cannot be reached",
 * );
 * error.code; // "MESSAGE_STORE_UNAVAILABLE"
 * ```
 */
export class MessageStoreUnavailableError extends Error {
  /** Names the failure for a handler that branches on it. */
  readonly code = "MESSAGE_STORE_UNAVAILABLE";
  /**
   * Makes the error of a call the database could not respond to.
   *
   * @param message What the client reads (no secret, no address).
   * @param options `cause`: the error of the database driver.
   */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "MessageStoreUnavailableError";
  }
}

/**
 * Thrown by a {@linkcode MessageStore} method when another writer (a second process
 * on the same SQLite file, the `sqlite3` shell) holds the database lock for longer
 * than the store waits. Nothing was changed: the same call may succeed a moment
 * later. The original error is the `cause`. The app responds 503 with
 * `Retry-After: 1`.
 *
 * @example
 * ```ts
 * declare const store: MessageStore;
 * declare function retryLater(): void;
 * try {
 *   await store.create({ author: "Ada", message: "Hello" });
 * } catch (error) {
 *   if (error instanceof MessageStoreBusyError) retryLater();
 *   else throw error;
 * }
 * ```
 */
export class MessageStoreBusyError extends Error {
  /** Names the failure for a handler that branches on it. */
  readonly code = "MESSAGE_STORE_BUSY";
  /**
   * Makes the error of a call that found the database locked.
   *
   * @param options `cause`: the error of the database driver.
   */
  constructor(options?: ErrorOptions) {
    super("Database busy: locked by another writer", options);
    this.name = "MessageStoreBusyError";
  }
}

/**
 * Thrown by {@linkcode MessageStore.create} when the highest id is already
 * `Number.MAX_SAFE_INTEGER`, the largest id JSON clients read exactly (a record
 * written there by another tool). Nothing was stored. The app responds 507.
 *
 * @example
 * ```ts
 * new MessageIdsExhaustedError().code; // "MESSAGE_IDS_EXHAUSTED"
 * ```
 */
export class MessageIdsExhaustedError extends Error {
  /** Names the failure for a handler that branches on it. */
  readonly code = "MESSAGE_IDS_EXHAUSTED";
  /** Makes the error of a create that found no id left. */
  constructor() {
    super(
      `No message id is left: the highest id has reached ${Number.MAX_SAFE_INTEGER}, the largest JSON clients read exactly; delete or renumber the records with the highest ids (with the sqlite3 shell or psql: ids past it cannot be named through the API)`,
    );
    this.name = "MessageIdsExhaustedError";
  }
}
