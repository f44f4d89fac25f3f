/**
 * {@linkcode MessageStore} on SQLite through the built-in `node:sqlite`.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { dirname } from "node:path";
import type { Message, MessageFields, MessageStore } from "./message_store.ts";

const SCHEMA = `CREATE TABLE IF NOT EXISTS messages (
  id INTEGER PRIMARY KEY,
  author TEXT NOT NULL,
  message TEXT NOT NULL
)`;

/** Options of {@linkcode openSqliteMessageStore}. */
export interface SqliteMessageStoreOptions {
  /**
   * How long, in ms, `revision()` trusts SQLite's last answer to "has another
   * connection committed?" (`PRAGMA data_version`, which costs more than the rest of
   * a cached read). Writes through this store move the revision at once, so reads
   * through it always see them; writes by another connection or process (a second
   * `messages` process on the same file, the `sqlite3` shell) show once the delay
   * has passed (a timer ends it). 0 asks on every call. @default 1
   */
  outsideWritesMs?: number;
}

/**
 * Opens (creating when needed) the SQLite database at `path` and returns a
 * {@linkcode MessageStore} on it. `":memory:"` keeps everything in memory; otherwise
 * the parent folder is created. The database runs in WAL mode with
 * `synchronous=NORMAL`: a write is in the operating system's hands once acknowledged,
 * so it survives the process being killed.
 *
 * @example
 * ```ts
 * const store = openSqliteMessageStore(":memory:");
 * store.create({ author: "Ada", message: "Hello" }); // { id: 1, ... }
 * store.close();
 * ```
 */
export function openSqliteMessageStore(
  path: string,
  options: SqliteMessageStoreOptions = {},
): MessageStore {
  const db = openDatabase(path);
  const statements = {
    list: db.prepare("SELECT id, author, message FROM messages ORDER BY id"),
    get: db.prepare("SELECT id, author, message FROM messages WHERE id = ?"),
    // One statement, so the id rule holds under concurrent writers too.
    create: db.prepare(
      `INSERT INTO messages (id, author, message)
       VALUES ((SELECT COALESCE(MAX(id), 0) + 1 FROM messages), ?, ?)
       RETURNING id, author, message`,
    ),
    update: db.prepare(
      "UPDATE messages SET author = ?, message = ? WHERE id = ? RETURNING id, author, message",
    ),
    delete: db.prepare("DELETE FROM messages WHERE id = ?"),
    dataVersion: db.prepare("PRAGMA data_version"),
  };
  // Bumped on our writes and whenever another connection has committed.
  let changes = 0;
  let seenDataVersion = -1;
  // Asking SQLite for its data version (~3 µs) costs more than the rest of a cached
  // read, so an answer is trusted for `outsideWritesMs` (a timer ends it: cheaper
  // per read than looking at a clock); our own writes move `changes` at once.
  const outsideWritesMs = options.outsideWritesMs ?? 1;
  let trusted: ReturnType<typeof setTimeout> | undefined;
  const distrust = () => {
    trusted = undefined;
  };
  const row = (value: unknown) => {
    const { id, author, message } = value as Message;
    return { id, author, message };
  };
  return {
    list: () => statements.list.all().map(row),
    get(id) {
      const found = statements.get.get(id);
      return found ? row(found) : undefined;
    },
    create(fields) {
      const created = row(statements.create.get(fields.author, fields.message));
      changes++;
      return created;
    },
    update(id, fields: MessageFields) {
      const updated = statements.update.get(fields.author, fields.message, id);
      if (!updated) return undefined;
      changes++;
      return row(updated);
    },
    delete(id) {
      const removed = statements.delete.run(id).changes > 0;
      if (removed) changes++;
      return removed;
    },
    revision() {
      if (trusted === undefined) {
        const { data_version } = statements.dataVersion.get() as {
          data_version: number;
        };
        if (data_version !== seenDataVersion) {
          seenDataVersion = data_version;
          changes++;
        }
        if (outsideWritesMs > 0) {
          const timer = setTimeout(distrust, outsideWritesMs);
          Deno.unrefTimer(timer);
          trusted = timer;
        }
      }
      return changes;
    },
    close() {
      clearTimeout(trusted);
      db.close();
    },
  };
}

function openDatabase(path: string): DatabaseSync {
  if (path !== ":memory:" && !path.startsWith("file:")) {
    Deno.mkdirSync(dirname(path), { recursive: true });
  }
  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec(SCHEMA);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
