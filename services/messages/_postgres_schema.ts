/**
 * The schema of the `messages` role on PostgreSQL: the table, the trigger notifying
 * other processes of every change, the change table of the feed and its trigger,
 * and the function creating a record.
 *
 * @module
 */
import type postgres from "postgres";

const MAX_ID = Number.MAX_SAFE_INTEGER;

/** The channel the table's trigger notifies on every change. */
export const CHANNEL = "homewire_messages_changed";

/** The advisory lock key (any constant) serializing set-up and creates. */
const LOCK_KEY = 0x4d455353; // "MESS"

/**
 * The set-up, as pairs of a query naming an existing piece (NULL when missing) and
 * the statement creating it. A process creates what is missing under the advisory
 * lock, so processes starting together on an empty database do not race on
 * `CREATE TABLE IF NOT EXISTS`.
 * `homewire_messages_create` takes the lock, then inserts: in a VOLATILE function
 * each statement sees what committed before it started, so the highest id read
 * includes the create that held the lock before (the lock is released after its
 * commit shows). One round trip per create, no retry, no gap, no duplicate.
 */
const SETUP: [existing: string, create: string][] = [
  [
    "to_regclass('messages')",
    `CREATE TABLE IF NOT EXISTS messages (
    id bigint PRIMARY KEY,
    author text NOT NULL,
    message text NOT NULL
  )`,
  ],
  [
    "to_regprocedure('homewire_messages_create(text, text)')",
    `CREATE OR REPLACE FUNCTION homewire_messages_create(new_author text, new_message text)
  RETURNS TABLE (id bigint, author text, message text)
  LANGUAGE plpgsql VOLATILE AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(${LOCK_KEY});
    RETURN QUERY
      INSERT INTO messages AS m (id, author, message)
      SELECT COALESCE(MAX(e.id), 0) + 1, new_author, new_message FROM messages e
      HAVING COALESCE(MAX(e.id), 0) < ${MAX_ID}
      RETURNING m.id, m.author, m.message;
  END $$`,
  ],
  [
    "to_regclass('message_changes')",
    `CREATE TABLE IF NOT EXISTS message_changes (
    seq bigserial PRIMARY KEY,
    kind text NOT NULL,
    id bigint NOT NULL,
    author text NOT NULL,
    message text NOT NULL,
    old_author text,
    old_message text
  )`,
  ],
  // The trigger runs as its owner, so a user who may only write `messages` writes
  // the changes too (reading and forgetting them needs SELECT and DELETE on
  // `message_changes`). Each change takes the lock before drawing its sequence number and keeps it to
  // its commit: writers take turns, so a change with a higher number never commits
  // before one with a lower number, and a reader asking for the changes after the
  // last it saw misses none.
  [
    "to_regprocedure('homewire_messages_record_change()')",
    `CREATE OR REPLACE FUNCTION homewire_messages_record_change() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(${LOCK_KEY});
    IF TG_OP = 'INSERT' THEN
      INSERT INTO message_changes (kind, id, author, message)
      VALUES ('created', NEW.id, NEW.author, NEW.message);
    ELSIF TG_OP = 'UPDATE' THEN
      INSERT INTO message_changes (kind, id, author, message, old_author, old_message)
      VALUES ('updated', NEW.id, NEW.author, NEW.message, OLD.author, OLD.message);
    ELSE
      INSERT INTO message_changes (kind, id, author, message)
      VALUES ('deleted', OLD.id, OLD.author, OLD.message);
    END IF;
    RETURN NULL;
  END $$`,
  ],
  [
    `(SELECT oid FROM pg_trigger WHERE tgname = 'homewire_messages_record_change'
      AND tgrelid = to_regclass('messages'))`,
    `CREATE OR REPLACE TRIGGER homewire_messages_record_change
  AFTER INSERT OR UPDATE OR DELETE ON messages
  FOR EACH ROW EXECUTE FUNCTION homewire_messages_record_change()`,
  ],
  // TRUNCATE fires no row trigger: before it empties the table, a statement
  // trigger records a `deleted` change for every record, so subscribers see the
  // records go as with DELETE.
  [
    "to_regprocedure('homewire_messages_record_truncate()')",
    `CREATE OR REPLACE FUNCTION homewire_messages_record_truncate() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
  BEGIN
    PERFORM pg_advisory_xact_lock(${LOCK_KEY});
    INSERT INTO message_changes (kind, id, author, message)
    SELECT 'deleted', m.id, m.author, m.message FROM messages m ORDER BY m.id;
    RETURN NULL;
  END $$`,
  ],
  [
    `(SELECT oid FROM pg_trigger WHERE tgname = 'homewire_messages_record_truncate'
      AND tgrelid = to_regclass('messages'))`,
    `CREATE OR REPLACE TRIGGER homewire_messages_record_truncate
  BEFORE TRUNCATE ON messages
  FOR EACH STATEMENT EXECUTE FUNCTION homewire_messages_record_truncate()`,
  ],
  [
    "to_regprocedure('homewire_messages_notify()')",
    `CREATE OR REPLACE FUNCTION homewire_messages_notify() RETURNS trigger
  LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('${CHANNEL}', '');
    RETURN NULL;
  END $$`,
  ],
  [
    `(SELECT oid FROM pg_trigger WHERE tgname = 'homewire_messages_changed'
      AND tgrelid = to_regclass('messages'))`,
    `CREATE OR REPLACE TRIGGER homewire_messages_changed
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON messages
  FOR EACH STATEMENT EXECUTE FUNCTION homewire_messages_notify()`,
  ],
];

/** Which pieces of {@linkcode SETUP} are missing, as one query. */
const MISSING = `SELECT ${
  SETUP.map(([existing], i) => `${existing} IS NULL AS "${i}"`).join(", ")
}`;

/**
 * Creates, when missing, the `messages` table, its trigger and its create function,
 * under an advisory lock, so processes starting together on an empty database do
 * not trip over each other. Only what is missing is created: a user who may use the
 * table but not create objects starts on a database set up before.
 *
 * @example
 * ```ts
 * import postgres from "postgres";
 *
 * await setUpSchema(postgres("postgres://app:secret@db/app"));
 * ```
 */
export async function setUpSchema(sql: postgres.Sql): Promise<void> {
  const missing = async (db: postgres.Sql | postgres.TransactionSql) => {
    const [row] = await db.unsafe(MISSING);
    return SETUP.filter((_, i) => row?.[String(i)] === true);
  };
  if ((await missing(sql)).length === 0) return;
  await sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(${LOCK_KEY})`;
    for (const [, create] of await missing(tx)) await tx.unsafe(create);
  });
}
