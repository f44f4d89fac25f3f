/**
 * The `messages` role: a JSON service storing short message records in SQLite.
 *
 * Layout: a role's folder imports `lib/`, `drivers/` and itself, never another role
 * (`tests/layout_test.ts` checks it).
 *
 * @module
 */
import { listenAt, listenSettings, serveApp } from "../../lib/serve.ts";
import { defineRole } from "../../lib/role.ts";
import { optional } from "../../lib/settings.ts";
import { headerSecret, text } from "../../lib/setting_kinds.ts";
import { errorText } from "../../lib/log.ts";
import { createMessagesApp } from "./app.ts";
import type { MessageStore } from "./message_store.ts";
import { openSqliteMessageStore } from "./sqlite_message_store.ts";

/** The `messages` role descriptor. */
export const messagesRole = defineRole({
  name: "messages",
  summary: "Message-record JSON service on SQLite (/api/message/resource)",
  settings: {
    ...listenSettings("MESSAGES", 8001),
    MESSAGES_DB: text({
      description:
        "SQLite database file or file: URI (:memory: keeps records in memory)",
      default: "./data/messages.sqlite3",
    }),
    MESSAGES_TOKEN: optional(headerSecret({
      description:
        "Bearer token required to create, update and delete (reads stay open)",
    })),
  },
  start(settings, { log }) {
    const path = settings.MESSAGES_DB;
    let store: MessageStore;
    try {
      store = openSqliteMessageStore(path);
    } catch (error) {
      throw new Error(`Cannot open MESSAGES_DB "${path}": ${errorText(error)}`);
    }
    log.info(`messages database ${path}`);
    if (settings.MESSAGES_TOKEN === undefined) {
      log.info(
        "MESSAGES_TOKEN is not set: every caller may create, update and delete records",
      );
    }
    try {
      const app = createMessagesApp({
        store,
        log,
        token: settings.MESSAGES_TOKEN,
      });
      const server = serveApp(app, {
        ...listenAt("MESSAGES", settings),
        log,
        name: "messages",
      });
      return Promise.resolve({
        async stop() {
          await server.stop();
          store.close();
        },
      });
    } catch (error) {
      store.close();
      throw error;
    }
  },
});
