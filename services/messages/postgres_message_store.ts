/**
 * {@linkcode MessageStore} on PostgreSQL through `npm:postgres`, for several
 * `messages` processes (on one machine or many) sharing one database.
 *
 * @module
 */
import postgres from "postgres";
import { raceSignal, withDeadline } from "../../lib/deadline.ts";
import type { MessageQuery } from "./list_query.ts";
import { type SqlDialect, sqlQuery } from "./_sql_query.ts";
import { scrub } from "./_database_url.ts";
import { postgresFold } from "./_fold_case.ts";
import { CHANNEL, setUpSchema } from "./_postgres_schema.ts";
import { createPrepareBudget } from "./_prepare_budget.ts";
import {
  type Message,
  type MessageChange,
  type MessageChangeKind,
  MessageIdsExhaustedError,
  type MessageStore,
  MessageStoreUnavailableError,
} from "./message_store.ts";

const MAX_ID = Number.MAX_SAFE_INTEGER;

/**
 * PostgreSQL's SQL: text compares in the "C" collation (code points) and folds as
 * `foldCase` in a UTF-8 database (in another, only `lower()`: `ς` and `İ` have no
 * place in it, and naming them fails every search).
 */
function postgresDialect(utf8: boolean): SqlDialect {
  return {
    placeholder: (n) => `$${n}`,
    contains: (column, needle) =>
      `strpos(${
        utf8 ? postgresFold(column) : `lower(${column})`
      }, ${needle}) > 0`,
    sortKey: (column) => `${column} COLLATE "C"`,
    text: (column) => column,
  };
}

/** Options of {@linkcode openPostgresMessageStore}. */
export interface PostgresMessageStoreOptions {
  /** Connections to the database at most. @default 10 */
  maxConnections?: number;
  /** How long, in seconds, a connection attempt may take. @default 10 */
  connectTimeoutSeconds?: number;
  /** How long, in ms, to wait before listening again after losing the listener. @default 1000 */
  relistenMs?: number;
  /**
   * How long, in ms, a call (and the set-up at start) may wait for the database
   * before it is given up as unavailable: a server that stopped responding without
   * closing its connections (a host gone from the network) would hold the
   * request for minutes. @default 10000
   */
  timeoutMs?: number;
}

/**
 * Connects to the PostgreSQL database `url` (`postgres://user:password@host:port/db`
 * or `postgresql://…`), creates the `messages` table, its trigger and its create
 * function when missing, and returns a {@linkcode MessageStore} on it. Fails (a
 * rejection whose message never holds the password) when the database cannot be
 * reached.
 *
 * A database that goes away later makes every call throw
 * {@linkcode MessageStoreUnavailableError} until it is back; connections are
 * opened again by themselves. `revision()` moves on every write of this process at
 * once and on every write of another (another `messages` process, `psql`) when its
 * notification arrives; while the listening connection is down it moves on every
 * call, so nothing is served from a cache that may be stale.
 *
 * @example
 * ```ts
 * const store = await openPostgresMessageStore("postgres://app:secret@db/app");
 * await store.create({ author: "Ada", message: "Hello" }); // { id: 1, ... }
 * await store.close();
 * ```
 */
export async function openPostgresMessageStore(
  url: string,
  options: PostgresMessageStoreOptions = {},
): Promise<MessageStore> {
  const connection = {
    connect_timeout: options.connectTimeoutSeconds ?? 10,
    onnotice: () => {},
    // Messages are short texts: no need for the server's type list at connect.
    fetch_types: false,
  };
  const sql = postgres(url, {
    ...connection,
    max: options.maxConnections ?? 10,
    idle_timeout: 60,
  });
  const timeoutMs = options.timeoutMs ?? 10_000;
  let dialect: SqlDialect;
  try {
    const encoding = await limited(async () => {
      await setUpSchema(sql);
      const [row] = await sql`SHOW server_encoding`;
      return row?.server_encoding;
    }, timeoutMs);
    dialect = postgresDialect(encoding === "UTF8");
  } catch (error) {
    await sql.end({ timeout: 0 });
    throw new Error(
      `Cannot reach PostgreSQL or set up the messages table: ${
        scrub(errorMessage(error), url)
      }`,
    );
  }

  let changes = 0;
  let listening = false;
  let closed = false;
  let relisten: ReturnType<typeof setTimeout> | undefined;
  const scheduleListen = () => {
    listening = false;
    if (closed || relisten !== undefined) return;
    relisten = setTimeout(() => {
      relisten = undefined;
      void listen();
    }, options.relistenMs ?? 1000);
  };
  // Our own listening connection rather than `sql.listen()`, which tries listening
  // again once after losing its connection and gives up when that fails (the
  // database still down). `onnotify` is the option `sql.listen()` itself uses; the
  // typings leave it out.
  const listenerOptions = {
    ...connection,
    max: 1,
    idle_timeout: 0,
    max_lifetime: 0,
    onnotify: () => changes++,
    onclose: scheduleListen,
  };
  const listener = postgres(url, listenerOptions as postgres.Options<never>);
  const listen = async () => {
    try {
      await listener.unsafe(`LISTEN ${CHANNEL}`);
      // What changed while nobody listened is unknown: start over.
      changes++;
      listening = true;
    } catch {
      scheduleListen();
    }
  };
  // A listener that does not come up in time leaves the cache off until it does.
  await limited(listen, timeoutMs).catch(() => {});

  const run = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await limited(work, timeoutMs);
    } catch (error) {
      if (!isUnreachable(error)) throw error;
      throw new MessageStoreUnavailableError(
        "Database unavailable: PostgreSQL cannot be reached",
        { cause: new Error(scrub(errorMessage(error), url)) },
      );
    }
  };
  // As many query shapes are prepared as SQLite keeps statements for them.
  const shouldPrepare = createPrepareBudget(100);
  const wrote = <T>(value: T) => {
    changes++;
    return value;
  };
  return {
    list: () =>
      run(async () =>
        (await sql`SELECT id, author, message FROM messages
          WHERE id BETWEEN ${-MAX_ID} AND ${MAX_ID} ORDER BY id`).map(row)
      ),
    query: (asked: MessageQuery) =>
      run(async () => {
        const { where, orderBy, params } = sqlQuery(asked, dialect);
        const n = params.length;
        // One statement: the count and the page come from one snapshot.
        const text = `SELECT t.total, p.id, p.author, p.message
           FROM (SELECT count(*) AS total FROM messages ${where}) t
           LEFT JOIN LATERAL (
             SELECT id, author, message FROM messages ${where} ${orderBy}
             LIMIT $${n + 1} OFFSET $${n + 2}
           ) p ON true`;
        const rows = await sql.unsafe(
          text,
          [...params, asked.limit ?? null, asked.offset],
          { prepare: shouldPrepare(text) },
        );
        const total = Number(rows[0]?.total ?? 0);
        const records = rows.filter((r) => r.id !== null).map(row);
        return { total, records };
      }),
    get: (id) =>
      run(async () => {
        const [found] =
          await sql`SELECT id, author, message FROM messages WHERE id = ${id}`;
        return found ? row(found) : undefined;
      }),
    create: (fields) =>
      run(async () => {
        const [created] = await sql`SELECT id, author, message
          FROM homewire_messages_create(${fields.author}, ${fields.message})`;
        if (!created) throw new MessageIdsExhaustedError();
        return wrote(row(created));
      }),
    update: (id, fields) =>
      run(async () => {
        const [updated] = await sql`UPDATE messages
          SET author = COALESCE(${fields.author ?? null}::text, author),
              message = COALESCE(${fields.message ?? null}::text, message)
          WHERE id = ${id} RETURNING id, author, message`;
        return updated ? wrote(row(updated)) : undefined;
      }),
    delete: (id) =>
      run(async () => {
        const result = await sql`DELETE FROM messages WHERE id = ${id}`;
        return result.count > 0 ? wrote(true) : false;
      }),
    revision() {
      if (!listening) changes++;
      return changes;
    },
    changesAfter: (seq, limit) =>
      run(async () =>
        (await sql`SELECT seq, kind, id, author, message, old_author, old_message
          FROM message_changes WHERE seq > ${seq} ORDER BY seq LIMIT ${limit}`)
          .map(changeRow)
      ),
    changeRange: () =>
      run(async () => {
        const [range] = await sql`SELECT COALESCE(MIN(seq), 0) AS oldest,
          COALESCE(MAX(seq), 0) AS newest FROM message_changes`;
        return { oldest: Number(range?.oldest), newest: Number(range?.newest) };
      }),
    forgetChanges: (seq) =>
      run(async () => {
        await sql`DELETE FROM message_changes WHERE seq <= ${seq}`;
      }),
    async close() {
      closed = true;
      clearTimeout(relisten);
      await Promise.all([
        sql.end({ timeout: 1 }),
        listener.end({ timeout: 1 }),
      ]);
    },
  };
}

/**
 * `work()`, or a rejection with code `TIMEOUT` (a `DeadlineError`) once `ms` have
 * passed; the work goes on.
 */
function limited<T>(work: () => Promise<T>, ms: number): Promise<T> {
  return withDeadline(
    ms,
    undefined,
    (signal) => raceSignal(work(), signal),
    `PostgreSQL did not respond within ${ms} ms`,
  );
}

function changeRow(value: Record<string, unknown>): MessageChange {
  const record = row(value);
  const change: MessageChange = {
    seq: Number(value.seq),
    kind: value.kind as MessageChangeKind,
    record,
  };
  if (value.old_author !== null && value.old_message !== null) {
    change.previous = {
      id: record.id,
      author: String(value.old_author),
      message: String(value.old_message),
    };
  }
  return change;
}

function row(value: Record<string, unknown>): Message {
  return {
    id: Number(value.id),
    author: String(value.author),
    message: String(value.message),
  };
}

/**
 * Connection failures and the server going away: refused, reset, timed out
 * (ours or the driver's), closed, and SQLSTATE classes 08 (connection exception), 57P0x (shutting down,
 * starting up) and 53300 (too many connections).
 */
function isUnreachable(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code ?? "");
  return /^(E[A-Z]+|TIMEOUT|CONNECT(ION)?_[A-Z_]+|08[0-9A-Z]{3}|57P0[1-4]|53300)$/
    .test(
      code,
    );
}

function errorMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && !error.message.includes(code)
    ? `${error.message} (${code})`
    : error.message;
}
