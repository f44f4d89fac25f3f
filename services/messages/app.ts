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
  type Awaitable,
  type Message,
  type MessageFields,
  MessageIdsExhaustedError,
  type MessageStore,
} from "./message_store.ts";
import {
  parseMessageFields,
  parseMessageId,
  parsePartialMessageFields,
} from "./_message_input.ts";
import {
  createJsonCache,
  type JsonText,
  noneMatchHits,
} from "./_json_cache.ts";
import { parseListQuery } from "./list_query.ts";
import { pageLinks } from "./page_links.ts";
import { messagesOpenApi, OPENAPI_PATH } from "./openapi.ts";
import { unavailableWhenBusy } from "./_unavailable_when_busy.ts";
import { storeReadiness } from "./measured_store.ts";
import { httpMetrics } from "../../lib/metrics/http_metrics.ts";
import type { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { readyzHandler } from "../../lib/readyz.ts";

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
  /** The role's metrics: every request counted and timed. @default none */
  metrics?: MetricsRegistry;
}

/**
 * Returns the Hono app of the `messages` role: list (200; with a json-server 0.17
 * query string, a page with `X-Total-Count` and `Link`, see `parseListQuery`), read
 * (200), create (201 with the record), update by POST or PUT on the item path (both
 * fields) or PATCH (either; 200 with `author` and `message`), delete (204, empty
 * body); reads carry an `ETag` and answer 304 to a matching `If-None-Match`; 404 for
 * an unknown or malformed id, 400 for a bad body or query parameter, 413 past
 * 64 KiB, 401 without the write token when one is set, 503 with `Retry-After` while
 * the database cannot answer (logged at WARNING), 507 to a create when no id is
 * left (logged at ERROR). `GET /openapi.json` describes it all.
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
  if (options.metrics) app.use(httpMetrics(options.metrics));
  // Ready when the store answers a read.
  app.get("/readyz", readyzHandler(() => storeReadiness(options.store)));
  const item = `${MESSAGES_PATH}/:id`;
  const writeMethods = ["POST", "PUT", "PATCH", "DELETE"];
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
  // Query answers are up to 1000 records each: fewer of them are kept.
  const listCache = createJsonCache(revision, 256);
  const itemCache = createJsonCache(revision);
  const renderList = () => then(store.list(), (body) => ({ body }));
  // A list query is cached by its whole URL (its Link header names it).
  const renderQuery = (url: string) => {
    const target = requestUrl(url);
    const { query, paging } = parseListQuery(target.searchParams);
    return then(store.query(query), ({ total, records }) => ({
      body: records,
      headers: {
        "x-total-count": String(total),
        link: pageLinks(target, paging, total),
        "access-control-expose-headers": EXPOSED_HEADERS,
      },
    }));
  };
  // Items are cached by their path segment, so a hit skips parsing the id.
  const renderItem = (segment: string) => {
    const id = parseMessageId(segment);
    if (id === undefined) return undefined;
    return then(store.get(id), (body) => body && { body });
  };
  app.get(MESSAGES_PATH, (c) => {
    const url = c.req.url;
    const search = url.indexOf("?");
    if (search < 0 || search === url.length - 1) {
      return then(answer(c, listCache.get("list", renderList)), (r) => r!);
    }
    // A malformed query throws its 400 from the render, so it is never cached.
    return then(answer(c, listCache.get(url, renderQuery)), (r) => r!);
  });

  app.post(MESSAGES_PATH, async (c) => {
    const created = await createRecord(
      store,
      parseMessageFields(await bodyText(c)),
      options.log,
    );
    return c.body(JSON.stringify(created), 201, {
      ...JSON_TYPE,
      location: `${MESSAGES_PATH}/${created.id}`,
    });
  });

  app.get(item, (c): Response | Promise<Response> => {
    const found = answer(c, itemCache.get(c.req.param("id") ?? "", renderItem));
    if (found instanceof Promise) {
      return found.then((response): Response => {
        if (response === undefined) throw notFound(c);
        return response;
      });
    }
    if (found === undefined) throw notFound(c);
    return found;
  });

  const update =
    (parse: (body: string) => Partial<MessageFields>) => async (c: Context) => {
      const id = idOf(c);
      const fields = parse(await bodyText(c));
      const updated = await store.update(id, fields);
      if (!updated) throw notFound(c);
      const { author, message } = updated;
      return c.body(JSON.stringify({ author, message }), 200, JSON_TYPE);
    };
  app.post(item, update(parseMessageFields));
  app.put(item, update(parseMessageFields));
  app.patch(item, update(parsePartialMessageFields));

  app.delete(item, async (c) => {
    if (!await store.delete(idOf(c))) throw notFound(c);
    return c.body(null, 204);
  });

  const openApi = JSON.stringify(messagesOpenApi());
  const openApiHead = {
    ...JSON_TYPE,
    "content-length": String(new TextEncoder().encode(openApi).length),
  };
  app.get(OPENAPI_PATH, (c) =>
    new Response(openApi, {
      headers: c.req.method === "HEAD" ? openApiHead : JSON_TYPE,
    }));

  return app;
}

/** The headers a browser's script may read from a list query's answer. */
const EXPOSED_HEADERS = "X-Total-Count, Link, ETag";

/** `f(value)`, after `value` settles when it is a promise. */
function then<T, R>(value: Awaitable<T>, f: (value: T) => R): Awaitable<R> {
  return value instanceof Promise ? value.then(f) : f(value);
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
      : ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
  }
  return undefined;
}

/**
 * The answer of a cached JSON text, once it is there (`undefined` when there is
 * none): 304 with its `ETag` and no body when `If-None-Match` names it, else 200.
 * The answer to HEAD (which runs the GET route) carries the text's length; a GET
 * answer leaves it to Deno, whose answers with a `Content-Length` header of ours
 * take about a microsecond longer to build.
 */
function answer(
  c: Context,
  json: Awaitable<JsonText | undefined>,
): Awaitable<Response | undefined> {
  return then(json, (found) => {
    if (found === undefined) return undefined;
    const noneMatch = c.req.header("if-none-match");
    if (noneMatch !== undefined && noneMatchHits(noneMatch, found.etag)) {
      return new Response(null, { status: 304, headers: { etag: found.etag } });
    }
    if (c.req.method !== "HEAD") {
      return new Response(found.text, { headers: found.headers });
    }
    return new Response(found.text, {
      headers: { ...found.headers, "content-length": found.length },
    });
  });
}

/** Creates a record; answers 507, logged at ERROR, when no id is left. */
async function createRecord(
  store: MessageStore,
  fields: MessageFields,
  log: Log,
): Promise<Message> {
  try {
    return await store.create(fields);
  } catch (error) {
    if (!(error instanceof MessageIdsExhaustedError)) throw error;
    log.error(`create answered 507: ${error.message}`);
    throw new HTTPException(507, { message: error.message, cause: error });
  }
}

/**
 * The request's URL, which the `Link` header names; 400 when its `Host` header
 * makes none (`a b`, `[::1`), as RFC 9112 asks of an invalid `Host`.
 */
function requestUrl(url: string): URL {
  const parsed = URL.parse(url);
  if (parsed === null) {
    const host = /^[a-z]+:\/\/([^/]*)/i.exec(url)?.[1] ?? url;
    throw new HTTPException(400, {
      message: `Invalid Host header "${
        preview(host)
      }": expected a host name or address, with an optional port`,
    });
  }
  return parsed;
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
