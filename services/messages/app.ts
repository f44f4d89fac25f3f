/**
 * The HTTP app of the `messages` role: message records under `/api/message/resource`.
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { requireBearer } from "../../lib/bearer.ts";
import { bodyText, createHttpApp, limitBody } from "../../lib/http.ts";
import type { Log } from "../../lib/log.ts";
import { preview } from "../../lib/preview.ts";
import {
  type Message,
  type MessageFields,
  MessageIdsExhaustedError,
  type MessageStore,
} from "./message_store.ts";
import { parseMessageFields, parseMessageId } from "./_message_input.ts";
import { createJsonCache, type JsonText } from "./_json_cache.ts";
import { unavailableWhenBusy } from "./_unavailable_when_busy.ts";

/** Where the records live. Paths are defined without a trailing slash. */
export const MESSAGES_PATH = "/api/message/resource";

/** Largest request body accepted, in bytes. */
export const MAX_BODY_BYTES = 64 * 1024;

const JSON_TYPE = { "content-type": "application/json" };
const ITEM_PATTERN = new RegExp(`^${MESSAGES_PATH}/([^/]+)$`);

/** Dependencies of {@linkcode createMessagesApp}. */
export interface MessagesAppOptions {
  /** Where the records are kept. */
  store: MessageStore;
  /** Where unexpected errors are logged. */
  log: Log;
  /** When set, create, update and delete require `Authorization: Bearer <token>`. */
  token?: string;
}

/**
 * Returns the Hono app of the `messages` role: list (200), read (200), create (201
 * with the record), update by POST on the item path (200 with `author` and
 * `message`), delete (204, empty body); 404 for an unknown or malformed id, 400 for
 * a bad body, 413 past 64 KiB, 401 without the write token when one is set, 503
 * with `Retry-After: 1` while another writer holds the database (logged at WARNING),
 * 507 to a create when no id is left (logged at ERROR).
 *
 * @example
 * ```ts
 * const app = createMessagesApp({ store: openSqliteMessageStore(":memory:"), log });
 * const response = await app.request("/api/message/resource");
 * await response.json(); // []
 * ```
 */
export function createMessagesApp(options: MessagesAppOptions): Hono {
  const store = unavailableWhenBusy(options.store, options.log);
  // The GET routes give HEAD its Content-Length themselves, so an item read is one
  // handler on Hono's synchronous path (its speed is measured against a bare
  // Deno.serve).
  const app = createHttpApp({
    log: options.log,
    allowedMethods,
    headLength: false,
  });
  const item = `${MESSAGES_PATH}/:id`;
  const writeMethods = ["POST", "DELETE"];
  const paths = [MESSAGES_PATH, item];
  if (options.token) {
    // The scheme in any case, as RFC 9110 reads it.
    app.on(
      writeMethods,
      paths,
      requireBearer({
        token: options.token,
        schemeCase: "any-case",
        realm: "messages",
      }),
    );
  }
  app.on(writeMethods, paths, limitBody(MAX_BODY_BYTES));

  // Reads reuse the serialized answers until the store's revision moves (an item
  // read through Hono and this cache costs about a microsecond in process). The list
  // has a cache of its own: no path segment may ever hit its entry.
  const revision = () => store.revision();
  const listCache = createJsonCache(revision);
  const itemCache = createJsonCache(revision);
  const renderList = () => store.list();
  // Items are cached by their path segment, so a hit skips parsing the id.
  const renderItem = (segment: string) => {
    const id = parseMessageId(segment);
    return id === undefined ? undefined : store.get(id);
  };
  const readItem = (segment: string) => itemCache.get(segment, renderItem);
  app.get(
    MESSAGES_PATH,
    (c) => jsonAnswer(c, listCache.get("list", renderList)!),
  );

  app.post(MESSAGES_PATH, async (c) => {
    const created = createRecord(
      store,
      parseMessageFields(await bodyText(c)),
      options.log,
    );
    return c.body(JSON.stringify(created), 201, {
      ...JSON_TYPE,
      location: `${MESSAGES_PATH}/${created.id}`,
    });
  });

  app.get(item, (c) => {
    const found = readItem(c.req.param("id") ?? "");
    if (found === undefined) throw notFound(c);
    return jsonAnswer(c, found);
  });

  app.post(item, async (c) => {
    const id = idOf(c);
    const fields = parseMessageFields(await bodyText(c));
    const updated = store.update(id, fields);
    if (!updated) throw notFound(c);
    const { author, message } = updated;
    return c.body(JSON.stringify({ author, message }), 200, JSON_TYPE);
  });

  app.delete(item, (c) => {
    if (!store.delete(idOf(c))) throw notFound(c);
    return c.body(null, 204);
  });

  return app;
}

/**
 * The methods of our paths, for the 405 of another method (a catch-all route would
 * put every GET on Hono's slower multi-handler path). An item path with a malformed
 * id names no record: 404.
 */
function allowedMethods(path: string): readonly string[] | undefined {
  if (path === MESSAGES_PATH) return ["GET", "HEAD", "POST"];
  const segment = ITEM_PATTERN.exec(path)?.[1];
  if (segment !== undefined) {
    return parseMessageId(segment) === undefined
      ? []
      : ["GET", "HEAD", "POST", "DELETE"];
  }
  return undefined;
}

const JSON_INIT: ResponseInit = { headers: JSON_TYPE };

/**
 * 200 with a cached JSON text. The answer to HEAD (which runs the GET route) carries
 * the text's length; a GET answer leaves it to Deno, whose answers with a
 * `Content-Length` header of ours take about a microsecond longer to build.
 */
function jsonAnswer(c: Context, json: JsonText): Response {
  if (c.req.method !== "HEAD") return new Response(json.text, JSON_INIT);
  return new Response(json.text, {
    headers: { ...JSON_TYPE, "content-length": json.length },
  });
}

/** Creates a record; answers 507, logged at ERROR, when no id is left. */
function createRecord(
  store: MessageStore,
  fields: MessageFields,
  log: Log,
): Message {
  try {
    return store.create(fields);
  } catch (error) {
    if (!(error instanceof MessageIdsExhaustedError)) throw error;
    log.error(`create answered 507: ${error.message}`);
    throw new HTTPException(507, { message: error.message, cause: error });
  }
}

function idOf(c: Context): number {
  const id = parseMessageId(c.req.param("id") ?? "");
  if (id === undefined) throw notFound(c);
  return id;
}

function notFound(c: Context): HTTPException {
  return new HTTPException(404, {
    message: `No message record with id "${preview(c.req.param("id") ?? "")}"`,
  });
}
