/**
 * {@linkcode MessageStore} on SQLite through the built-in `node:sqlite`.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import { dirname } from "node:path";
import type { MessageQuery } from "./list_query.ts";
import { type SqlDialect, sqlQuery } from "./_sql_query.ts";
import { foldCase } from "./_fold_case.ts";
import {
  type Message,
  type MessageChange,
  type MessageChangeKind,
  MessageIdsExhaustedError,
  type MessageStore,
  MessageStoreBusyError,
} from "./message_store.ts";

const SCHEMA = `CREATE TABLE IF NOT EXISTS messages (
  id INTEGER PRIMARY KEY,
  author TEXT NOT NULL,
  message TEXT NOT NULL
)`;

/**
 * The change table of the feed, written by triggers in the transaction of each
 * write (ours, another process's, the sqlite3 shell's). SQLite has one writer at a
 * time, so sequence numbers ascend in commit order; AUTOINCREMENT never reuses one
 * after the oldest are forgotten.
 */
const CHANGES_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS message_changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  id INTEGER NOT NULL,
  author TEXT NOT NULL,
  message TEXT NOT NULL,
  old_author TEXT,
  old_message TEXT
)`,
  `CREATE TRIGGER IF NOT EXISTS message_changes_created AFTER INSERT ON messages
BEGIN
  INSERT INTO message_changes (kind, id, author, message)
  VALUES ('created', NEW.id, NEW.author, NEW.message);
END`,
  `CREATE TRIGGER IF NOT EXISTS message_changes_updated AFTER UPDATE ON messages
BEGIN
  INSERT INTO message_changes (kind, id, author, message, old_author, old_message)
  VALUES ('updated', NEW.id, NEW.author, NEW.message, OLD.author, OLD.message);
END`,
  `CREATE TRIGGER IF NOT EXISTS message_changes_deleted AFTER DELETE ON messages
BEGIN
  INSERT INTO message_changes (kind, id, author, message)
  VALUES ('deleted', OLD.id, OLD.author, OLD.message);
END`,
];

/**
 * How long, in ms, a statement waits for the write lock another connection holds
 * before it gives up with {@linkcode MessageStoreBusyError}. Short, because
 * `node:sqlite` is synchronous: the whole process, every request included, stands
 * still while it waits. Another homewire process's write transactions are single
 * statements that commit in milliseconds (WAL, no fsync per commit), so 250 ms
 * outlasts them with room to spare; only a lock held for long (the `sqlite3` shell
 * inside `BEGIN`, a backup) runs it out, and then the client is told to retry.
 */
const BUSY_TIMEOUT_MS = 250;

/**
 * The wait while opening the file, where nothing else is being served yet: long
 * enough to outlast a checkpoint or a WAL recovery by another process.
 */
const OPEN_BUSY_TIMEOUT_MS = 5000;

/**
 * The largest id stored or served: node:sqlite reads a larger integer as an error,
 * and JSON clients read no larger one exactly.
 */
const MAX_ID = Number.MAX_SAFE_INTEGER;

/** Options of {@linkcode openSqliteMessageStore}. */
export interface SqliteMessageStoreOptions {
  /**
   * How long, in ms, `revision()` trusts SQLite's last reply to "has another
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
 * so it survives the process crashing or being killed (`kill -9`); a power loss or
 * an operating-system crash may undo the last writes (the file stays consistent).
 * NORMAL spares an fsync per write, which counts on SD cards.
 *
 * A call that finds the database locked by another writer for 250 ms rejects with
 * {@linkcode MessageStoreBusyError} and changes nothing. `node:sqlite` is
 * synchronous: every call runs at once, and its promise is already settled.
 *
 * The write-ahead log is checkpointed into the database file as it grows (SQLite's
 * automatic checkpoint, every 1000 pages, so the `-wal` file stays near 4 MB): no
 * statement is left open between calls, since an open one would hold a read
 * snapshot that no checkpoint can pass.
 *
 * @example
 * ```ts
 * const store = openSqliteMessageStore(":memory:");
 * await store.create({ author: "Ada", message: "Hello" }); // { id: 1, ... }
 * await store.close();
 * ```
 */
export function openSqliteMessageStore(
  path: string,
  options: SqliteMessageStoreOptions = {},
): MessageStore {
  const db = openDatabase(path);
  const statements = {
    list: db.prepare(
      `SELECT id, author, message FROM messages
       WHERE id BETWEEN -${MAX_ID} AND ${MAX_ID} ORDER BY id`,
    ),
    get: db.prepare("SELECT id, author, message FROM messages WHERE id = ?"),
    // One statement, so the id rule holds under concurrent writers too; no row
    // when the next id would pass MAX_ID. MAX(id) stays in scalar subqueries, which
    // SQLite reads from the end of the index: in a FROM subquery it scans the
    // whole table on every create.
    create: db.prepare(
      `INSERT INTO messages (id, author, message)
       SELECT (SELECT COALESCE(MAX(id), 0) + 1 FROM messages), ?, ?
       WHERE (SELECT COALESCE(MAX(id), 0) FROM messages) < ${MAX_ID}
       RETURNING id, author, message`,
    ),
    update: db.prepare(
      `UPDATE messages SET author = COALESCE(?, author), message = COALESCE(?, message)
       WHERE id = ? RETURNING id, author, message`,
    ),
    delete: db.prepare("DELETE FROM messages WHERE id = ?"),
    dataVersion: db.prepare("PRAGMA data_version"),
    changesAfter: db.prepare(
      `SELECT seq, kind, id, author, message, old_author, old_message
       FROM message_changes WHERE seq > ? ORDER BY seq LIMIT ?`,
    ),
    changeRange: db.prepare(
      `SELECT COALESCE(MIN(seq), 0) AS oldest, COALESCE(MAX(seq), 0) AS newest
       FROM message_changes`,
    ),
    forgetChanges: db.prepare("DELETE FROM message_changes WHERE seq <= ?"),
  };
  // List queries are built from a few shapes: their statements are kept by text.
  const prepared = new Map<string, ReturnType<typeof db.prepare>>();
  const prepare = (sql: string) => {
    let statement = prepared.get(sql);
    if (statement === undefined) {
      if (prepared.size >= 100) prepared.clear();
      statement = db.prepare(sql);
      prepared.set(sql, statement);
    }
    return statement;
  };
  const query = (asked: MessageQuery) => {
    const { where, orderBy, params } = sqlQuery(asked, SQLITE);
    const counted = prepare(`SELECT COUNT(*) AS total FROM messages ${where}`)
      .get(...params) as { total: number };
    const records = prepare(
      `SELECT id, author, message FROM messages ${where} ${orderBy} LIMIT ? OFFSET ?`,
    ).all(...params, asked.limit ?? -1, asked.offset).map(row);
    return { total: Number(counted.total), records };
  };
  // Bumped on our writes and whenever another connection has committed.
  let changes = 0;
  let seenDataVersion = -1;
  // Asking SQLite for its data version (~3 µs) costs more than the rest of a cached
  // read, so its reply is trusted for `outsideWritesMs` (a timer ends it: cheaper
  // per read than looking at a clock); our own writes move `changes` at once.
  const outsideWritesMs = options.outsideWritesMs ?? 1;
  let trusted: ReturnType<typeof setTimeout> | undefined;
  const distrust = () => {
    trusted = undefined;
  };
  const row = (value: unknown) => {
    const { id, author, message } = value as Message;
    return { id, author: asText(author), message: asText(message) };
  };
  // Statements with RETURNING are run to completion with all(): get() steps them
  // once and leaves them open, holding a read snapshot, so no checkpoint could
  // finish and the -wal file grew without bound (1.5 GB after 372,000 creates).
  const one = (rows: unknown[]) =>
    rows[0] === undefined ? undefined : row(rows[0]);
  return {
    list: () => settled(() => statements.list.all().map(row)),
    query: (asked) => settled(() => query(asked)),
    get: (id) =>
      settled(() => {
        const found = statements.get.get(id);
        return found ? row(found) : undefined;
      }),
    create: (fields) =>
      settled(() => {
        const created = one(
          statements.create.all(fields.author, fields.message),
        );
        if (!created) throw new MessageIdsExhaustedError();
        changes++;
        return created;
      }),
    update: (id, fields) =>
      settled(() => {
        const updated = one(
          statements.update.all(
            fields.author ?? null,
            fields.message ?? null,
            id,
          ),
        );
        if (updated) changes++;
        return updated;
      }),
    delete: (id) =>
      settled(() => {
        const removed = statements.delete.run(id).changes > 0;
        if (removed) changes++;
        return removed;
      }),
    revision() {
      if (trusted === undefined) {
        const { data_version } = busyChecked(() =>
          statements.dataVersion.get()
        ) as { data_version: number };
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
    changesAfter: (seq, limit) =>
      settled(() =>
        statements.changesAfter.all(seq, limit).map((value) =>
          changeRow(value as unknown as ChangeRow)
        )
      ),
    changeRange: () =>
      settled(() => {
        const { oldest, newest } = statements.changeRange.get() as {
          oldest: number;
          newest: number;
        };
        return { oldest: Number(oldest), newest: Number(newest) };
      }),
    forgetChanges: (seq) =>
      settled(() => {
        statements.forgetChanges.run(seq);
      }),
    close: () =>
      settled(() => {
        clearTimeout(trusted);
        db.close();
      }),
  };
}

/** A row of the change table. */
interface ChangeRow {
  seq: number;
  kind: MessageChangeKind;
  id: number;
  author: string;
  message: string;
  old_author: string | null;
  old_message: string | null;
}

function changeRow(value: ChangeRow): MessageChange {
  const record = {
    id: Number(value.id),
    author: asText(value.author),
    message: asText(value.message),
  };
  const change: MessageChange = {
    seq: Number(value.seq),
    kind: value.kind,
    record,
  };
  if (value.old_author !== null && value.old_message !== null) {
    change.previous = {
      id: record.id,
      author: asText(value.old_author),
      message: asText(value.old_message),
    };
  }
  return change;
}

const utf8 = new TextDecoder();

/**
 * A text column's value as a string. SQLite keeps what another tool wrote: the
 * sqlite3 shell's `x'..'` stays a BLOB in a TEXT column, which `node:sqlite` reads
 * as bytes (served as `{"0":104,...}` before); its UTF-8 is decoded, as SQLite's
 * own `CAST(... AS TEXT)` reads it, a byte that is not UTF-8 as U+FFFD.
 */
function asText(value: string | Uint8Array): string {
  return typeof value === "string" ? value : utf8.decode(value);
}

/** A BLOB another tool wrote is text to the client: compared and sorted as text. */
const castAsText = (column: string): string => `CAST(${column} AS TEXT)`;

/** SQLite's SQL: text compares by UTF-8 bytes (code points); `homewire_fold` is `foldCase`. */
const SQLITE: SqlDialect = {
  placeholder: () => "?",
  contains: (column, needle) =>
    `instr(homewire_fold(${column}), ${needle}) > 0`,
  sortKey: castAsText,
  text: castAsText,
};

function openDatabase(path: string): DatabaseSync {
  const file = databaseFile(path);
  if (file !== undefined) Deno.mkdirSync(dirname(file), { recursive: true });
  const db = new DatabaseSync(path);
  try {
    // SQLite's own lower() folds ASCII only.
    db.function(
      "homewire_fold",
      { deterministic: true },
      (text) =>
        typeof text === "string" || text instanceof Uint8Array
          ? foldCase(asText(text))
          : null,
    );
    db.exec(`PRAGMA busy_timeout = ${OPEN_BUSY_TIMEOUT_MS}`);
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec(SCHEMA);
    for (const statement of CHANGES_SCHEMA) db.exec(statement);
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * The file a database path names: the path itself, or the file of an SQLite URI
 * (`file:data/m.db`, `file:///var/lib/m.db?mode=rwc`); `undefined` for an in-memory
 * database.
 */
function databaseFile(path: string): string | undefined {
  if (path === ":memory:") return undefined;
  if (!path.startsWith("file:")) return path;
  const [name = "", query = ""] = path.slice("file:".length).split(/[#?]/);
  const inMemory = name === "" || name === ":memory:" ||
    new URLSearchParams(query).get("mode") === "memory";
  if (inMemory) return undefined;
  // SQLite takes an authority only when empty or "localhost"; with another, or
  // malformed escapes, there is no folder to make and SQLite says what is wrong.
  const [, authority, local = ""] = /^\/\/([^/]*)(.*)$/.exec(name) ??
    [, "", name];
  if (authority !== "" && authority !== "localhost") return undefined;
  try {
    return decodeURIComponent(local);
  } catch {
    return undefined;
  }
}

/** `run()`'s outcome as a promise, SQLite's "database is locked" as our error. */
function settled<T>(run: () => T): Promise<T> {
  return Promise.try(() => busyChecked(run));
}

/** Runs one statement, turning SQLite's "database is locked" into our error. */
function busyChecked<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (isBusy(error)) throw new MessageStoreBusyError({ cause: error });
    throw error;
  }
}

/** SQLITE_BUSY, plain or extended (`SQLITE_BUSY_SNAPSHOT` and the like). */
function isBusy(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === "number" && (code & 0xff) === 5;
}
