/**
 * The collector's queue of points waiting for the time-series store, in SQLite
 * (`node:sqlite`): on disk it survives kill -9 and a power cut (write-ahead log,
 * synchronous commits); `:memory:` keeps it in memory only.
 *
 * @module
 */
import { mkdirSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";

/** The format of the buffer file this version writes and reads (`user_version`). */
export const POINT_QUEUE_FORMAT = 1;

/** One queued point: its line of line protocol and its place in the queue. */
export interface QueuedPoint {
  /** Position in the queue (increasing in the order points were collected). */
  readonly id: number;
  /** The point as one line of line protocol, with its original time. */
  readonly line: string;
}

/** A queue of points, oldest first. */
export interface PointQueue {
  /** Appends lines (one transaction: all or none are kept). */
  add(lines: readonly string[]): void;
  /** The `limit` oldest points. */
  oldest(limit: number): QueuedPoint[];
  /** Removes the points up to and including `last` (acknowledged by the store). */
  removeThrough(last: QueuedPoint): void;
  /** Removes the `count` oldest points. */
  dropOldest(count: number): void;
  /** Points queued. */
  readonly size: number;
  /** Closes the file; later calls throw. */
  close(): void;
}

/** Thrown by {@linkcode openPointQueue} for a file it cannot use; it is left as it is. */
export class PointQueueFileError extends Error {
  /** Builds the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PointQueueFileError";
  }
}

/**
 * Opens (creating it and its folder if needed) the queue at `path`, or an in-memory
 * queue for `:memory:`. A file that is no SQLite database, another program's database
 * or a newer format is refused with a {@linkcode PointQueueFileError} and never
 * changed or deleted.
 *
 * @example
 * ```ts
 * const queue = openPointQueue("./data/collector-buffer.sqlite3");
 * queue.add(["home_pressure,location=in value=1013.2 1764000000000"]);
 * queue.oldest(10); // [{ id: 1, line: "home_pressure,..." }]
 * ```
 */
export function openPointQueue(path: string): PointQueue {
  const memory = path === ":memory:";
  let db: DatabaseSync;
  try {
    if (!memory) {
      const slash = path.lastIndexOf("/");
      if (slash > 0) mkdirSync(path.slice(0, slash), { recursive: true });
    }
    db = new DatabaseSync(path);
  } catch (error) {
    throw new PointQueueFileError(
      `cannot open "${path}": ${describe(error)}`,
      { cause: error },
    );
  }
  try {
    prepareSchema(db, memory);
  } catch (error) {
    db.close();
    if (error instanceof PointQueueFileError) throw error;
    if (/\bdatabase is locked\b/.test(describe(error))) {
      throw new PointQueueFileError(
        `"${path}" is in use by another running collector: give each collector its own file`,
        { cause: error },
      );
    }
    throw new PointQueueFileError(
      `cannot read "${path}": ${
        describe(error)
      }: move the file away (it is left as it is) or point the setting at another file`,
      { cause: error },
    );
  }

  const insert = db.prepare("INSERT INTO points (line) VALUES (?)");
  const select = db.prepare(
    "SELECT id, line FROM points ORDER BY id LIMIT ?",
  );
  const removeThrough = db.prepare("DELETE FROM points WHERE id <= ?");
  const dropOldest = db.prepare(
    "DELETE FROM points WHERE id IN (SELECT id FROM points ORDER BY id LIMIT ?)",
  );
  const count = db.prepare("SELECT count(*) AS n FROM points");
  const transaction = (work: () => void) => {
    db.exec("BEGIN IMMEDIATE");
    try {
      work();
      db.exec("COMMIT");
    } catch (error) {
      db.exec("ROLLBACK");
      throw error;
    }
  };

  return {
    add(lines) {
      if (lines.length === 0) return;
      transaction(() => {
        for (const line of lines) insert.run(line);
      });
    },
    oldest(limit) {
      return select.all(limit).map((row) => ({
        id: Number(row.id),
        line: String(row.line),
      }));
    },
    removeThrough(last) {
      removeThrough.run(last.id);
    },
    dropOldest(n) {
      if (n > 0) dropOldest.run(n);
    },
    get size() {
      return Number(count.get()?.n ?? 0);
    },
    close() {
      if (db.isOpen) db.close();
    },
  };
}

/** Checks the file's format and creates the table in a new file. */
function prepareSchema(db: DatabaseSync, memory: boolean): void {
  // Held from the first write until closed: a second collector on the same file
  // would send and remove the first one's points.
  if (!memory) db.exec("PRAGMA locking_mode = EXCLUSIVE");
  // Reading the version is the first read of the file: a file that is not a
  // database fails here.
  const version = Number(db.prepare("PRAGMA user_version").get()?.user_version);
  if (version > POINT_QUEUE_FORMAT) {
    throw new PointQueueFileError(
      `the file was written by a newer homewire (buffer format ${version}; this version reads ${POINT_QUEUE_FORMAT}): upgrade homewire, or point the setting at another file (this one is left as it is)`,
    );
  }
  if (version === 0) {
    const tables = db.prepare(
      "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'",
    ).get()?.n;
    if (Number(tables) > 0) {
      throw new PointQueueFileError(
        "the file is an SQLite database of another program, not a homewire buffer: point the setting at another file (this one is left as it is)",
      );
    }
  }
  if (!memory) {
    db.exec("PRAGMA journal_mode = WAL");
    // Every commit reaches the disk before it returns: a power cut loses nothing.
    db.exec("PRAGMA synchronous = FULL");
  }
  if (version === 0) {
    // One transaction: a file is either empty or a complete buffer of this format.
    db.exec(`BEGIN IMMEDIATE;
      CREATE TABLE points (id INTEGER PRIMARY KEY AUTOINCREMENT, line TEXT NOT NULL);
      PRAGMA user_version = ${POINT_QUEUE_FORMAT};
      COMMIT`);
  }
  // A file of this format must have the table: reading it proves it. The empty
  // write transaction takes the exclusive lock now, not at the first point.
  db.prepare("SELECT count(*) FROM points").get();
  if (!memory) db.exec("BEGIN IMMEDIATE; COMMIT");
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
