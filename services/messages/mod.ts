/**
 * The `messages` role: a JSON service storing short message records in SQLite or
 * PostgreSQL.
 *
 * Layout: a role's folder imports `lib/`, `drivers/` and itself, never another role
 * (`tests/layout_test.ts` checks it).
 *
 * @module
 */
import {
  measuredStore,
  storeReadiness,
  storeSeries,
} from "./measured_store.ts";
import { listenAt, listenSettings, serveApp } from "../../lib/serve.ts";
import { defineRole } from "../../lib/role.ts";
import { optional } from "../../lib/settings.ts";
import { headerSecret, integer, text } from "../../lib/setting_kinds.ts";
import { allowOrigin } from "../../lib/allow_origin.ts";
import { errorText } from "../../lib/log.ts";
import { createMessagesApp } from "./app.ts";
import { createChangeFeed } from "./change_feed.ts";
import type { MessageStore } from "./message_store.ts";
import { openSqliteMessageStore } from "./sqlite_message_store.ts";
import { openPostgresMessageStore } from "./postgres_message_store.ts";
import {
  databaseProblem,
  isPostgresUrl,
  maskPassword,
  scrub,
} from "./_database_url.ts";
import { backupSqliteDatabase } from "./backup_sqlite_database.ts";

/** The one command of the role: `messages backup PATH`. */
const BACKUP = "backup";

/** The `messages` role descriptor. */
export const messagesRole = defineRole({
  name: "messages",
  summary:
    "Message-record JSON service on SQLite or PostgreSQL (/api/message/resource)",
  usage: "messages [backup PATH]",
  maxArgs: 2,
  // A backup is a one-shot run: its exit code is its verdict.
  runsAlone: (args) => args.length > 0,
  settings: {
    ...listenSettings("MESSAGES", 8001),
    MESSAGES_DB: text({
      description:
        "SQLite database file or file: URI (:memory: keeps records in memory), or a PostgreSQL database as postgres://user:password@host:port/database (also postgresql://; the password is never logged)",
      default: "./data/messages.sqlite3",
    }),
    MESSAGES_TOKEN: optional(headerSecret({
      description:
        "Bearer token required to create, update and delete (reads stay open)",
    })),
    MESSAGES_EVENTS_KEEP: integer({
      description:
        "How many of the newest changes the database keeps for change-feed clients resuming with Last-Event-ID (an older one gets a reset event)",
      default: 10_000,
      min: 1,
    }),
    MESSAGES_ALLOW_ORIGIN: optional(allowOrigin({
      description:
        "* (any page), or the origins whose pages may read and write records, comma-separated (http://localhost:5173,https://app.example.com): they get CORS headers, others none (and 403 to a preflight). Unset: no CORS headers",
    })),
  },
  series: (registry) => {
    storeSeries(registry);
  },
  check(settings, _failed, _env, args) {
    const db = settings.MESSAGES_DB;
    const problem = db === undefined ? undefined : databaseProblem(db);
    if (problem !== undefined) return [problem];
    if (args.length === 0) return [];
    if (args[0] !== BACKUP) {
      return [
        `Unknown command or role "${
          args[0]
        }" after messages: expected "messages backup PATH" or a role name (see --help)`,
      ];
    }
    if (args.length < 2) {
      return [
        'Missing PATH after "messages backup": give the file to write the copy to',
      ];
    }
    if (db !== undefined && (isPostgresUrl(db) || isInMemory(db))) {
      return [
        `messages backup copies an SQLite database file, and MESSAGES_DB "${
          maskPassword(db)
        }" is not one${
          isPostgresUrl(db) ? ": back PostgreSQL up with pg_dump" : ""
        }`,
      ];
    }
    return [];
  },
  async start(settings, { args, log, metrics }) {
    const db = settings.MESSAGES_DB;
    const shown = maskPassword(db);
    if (args[0] === BACKUP) {
      const target = args[1]!;
      const done = Promise.try(() => {
        backupSqliteDatabase(db, target);
        log.info(`messages database ${shown} backed up to ${target}`);
        return 0;
      });
      return { done, stop: () => done.then(() => {}, () => {}) };
    }
    let store: MessageStore;
    try {
      store = isPostgresUrl(db)
        ? await openPostgresMessageStore(db)
        : openSqliteMessageStore(db);
    } catch (error) {
      throw new Error(
        `Cannot open MESSAGES_DB "${shown}": ${scrub(errorText(error), db)}`,
      );
    }
    log.info(`messages database ${shown}`);
    if (settings.MESSAGES_TOKEN === undefined) {
      log.info(
        "MESSAGES_TOKEN is not set: every client may create, update and delete records",
      );
    }
    const feed = createChangeFeed({
      store,
      log,
      keep: settings.MESSAGES_EVENTS_KEEP,
    });
    try {
      const kind = isPostgresUrl(db) ? "postgres" : "sqlite";
      const app = createMessagesApp({
        store: metrics ? measuredStore(store, metrics, kind) : store,
        log,
        token: settings.MESSAGES_TOKEN,
        allowOrigin: settings.MESSAGES_ALLOW_ORIGIN,
        feed,
        metrics,
      });
      const server = serveApp(app, {
        ...listenAt("MESSAGES", settings),
        log,
        name: "messages",
      });
      return {
        ready: () => storeReadiness(store),
        async stop() {
          // The streams never end by themselves: end them, so the server drains.
          feed.close();
          await server.stop();
          await store.close();
        },
      };
    } catch (error) {
      feed.close();
      await store.close();
      throw error;
    }
  },
});

/** `:memory:` and in-memory `file:` URIs: nothing on disk to back up. */
function isInMemory(db: string): boolean {
  return db === ":memory:" || /^file::memory:|[?&]mode=memory(&|$)/.test(db);
}
