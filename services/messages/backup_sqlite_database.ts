/**
 * A consistent copy of the `messages` SQLite database, taken while it serves.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";

/** How long, in ms, the copy waits for a lock (a checkpoint in progress). */
const BUSY_TIMEOUT_MS = 5000;

/**
 * Thrown by {@linkcode backupSqliteDatabase} when no copy could be written (the
 * source cannot be opened, the target exists or cannot be written). The SQLite
 * error is the `cause`.
 *
 * @example
 * ```ts
 * new MessagesBackupError("data/m.sqlite3", "/backups/m.sqlite3").code;
 * // "MESSAGES_BACKUP_FAILED"
 * ```
 */
export class MessagesBackupError extends Error {
  /** Names the failure for a handler that branches on it. */
  readonly code = "MESSAGES_BACKUP_FAILED";
  /**
   * Makes the error of a copy that could not be written.
   *
   * @param source The database named by `MESSAGES_DB`.
   * @param target The file asked for.
   * @param options `cause`: SQLite's error.
   */
  constructor(source: string, target: string, options?: ErrorOptions) {
    const cause = options?.cause instanceof Error
      ? `: ${options.cause.message}`
      : "";
    super(`Cannot back up "${source}" to "${target}"${cause}`, options);
    this.name = "MessagesBackupError";
  }
}

/**
 * Writes a consistent copy of the SQLite database `source` (a file or `file:`
 * URI) to the new file `target` with `VACUUM INTO`, through a read-only
 * connection of its own: a process serving the database goes on reading and
 * writing meanwhile (WAL), and the copy is one snapshot, complete and compact,
 * with no log beside it. Throws {@linkcode MessagesBackupError} when `target`
 * already exists or either file cannot be opened.
 *
 * @example
 * ```ts
 * const dir = Deno.makeTempDirSync();
 * backupSqliteDatabase("data/messages.sqlite3", `${dir}/messages-backup.sqlite3`);
 * ```
 */
export function backupSqliteDatabase(source: string, target: string): void {
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(source, { readOnly: true });
    db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.prepare("VACUUM INTO ?").run(target);
  } catch (error) {
    throw new MessagesBackupError(source, target, { cause: error });
  } finally {
    db?.close();
  }
}
