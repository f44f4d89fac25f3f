/**
 * The HTTP app of the `messages` role: message records under `/api/message/resource`.
 *
 * @module
 */
import type { Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { requireBearer } from "../../lib/bearer.ts";
import { bodyText } from "../../lib/body_text.ts";
import type { AllowedOrigins } from "../../lib/allow_origin.ts";
import { cors } from "../../lib/cors.ts";
import { createHttpApp } from "../../lib/http.ts";
import { limitBody } from "../../lib/limit_body.ts";
import { methodNotAllowed } from "../../lib/method_not_allowed.ts";
import { unrouted } from "../../lib/unrouted.ts";
import type { Log } from "../../lib/log.ts";
import { preview } from "../../lib/preview.ts";
import type { MessageFields, MessageStore } from "./message_store.ts";
import {
  parseMessageFields,
  parseMessageId,
  parsePartialMessageFields,
} from "./_message_input.ts";
import {
  createJsonCache,
  type JsonCache,
  type JsonText,
  noneMatchHits,
  type Rendered,
} from "./_json_cache.ts";
import { parseFilter, parseListQuery } from "./list_query.ts";
import { pageLinks } from "./page_links.ts";
import { messagesOpenApi, OPENAPI_PATH } from "./openapi.ts";
import { storeErrors } from "./_store_errors.ts";
import type { ChangeFeed } from "./change_feed.ts";
import { storeReadiness } from "./measured_store.ts";
import { httpMetrics } from "../../lib/metrics/http_metrics.ts";
import type { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { readyzHandler } from "../../lib/readyz.ts";

/** Where the records live. Paths are defined without a trailing slash. */
export const MESSAGES_PATH = "/api/message/resource";

/** The change feed (Server-Sent Events). */
export const EVENTS_PATH = `${MESSAGES_PATH}/events`;

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
  /**
   * Origins whose pages may read the responses and write (`*` for every one);
   * unset, no CORS header is sent.
   */
  allowOrigin?: AllowedOrigins;
  /** When given, `GET /api/message/resource/events` streams its changes. */
  feed?: ChangeFeed;
  /** The role's metrics: every request counted and timed. @default none */
  metrics?: MetricsRegistry;
}

/**
 * Returns the Hono app of the `messages` role: list (200; with a json-server 0.17
 * query string, a page with `X-Total-Count` and `Link`, see `parseListQuery`), read
 * (200), create (201 with the record), update by POST or PUT on the item path (both
 * fields) or PATCH (either; 200 with `author` and `message`), delete (204, empty
 * body); reads carry an `ETag` and respond 304 to a matching `If-None-Match`; 404
 * for an unknown or malformed id, 400 for a bad body or query parameter, 413 past
 * 64 KiB, 401 without the write token when one is set; the store's failures as
 * `storeErrors` maps them (503 with `Retry-After` while the database cannot
 * respond, 507 to a create when no id is left). `GET /openapi.json` describes it
 * all.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import { openSqliteMessageStore } from "./sqlite_message_store.ts";
 *
 * const app = createMessagesApp({
 *   store: openSqliteMessageStore(":memory:"),
 *   log: createLog("messages"),
 * });
 * const response = await app.request("/api/message/resource");
 * await response.json(); // []
 * ```
 */
export function createMessagesApp(options: MessagesAppOptions): Hono {
  const { store, log } = options;
  // The GET routes give HEAD its Content-Length themselves (no `headLength()`
  // middleware), so an item read is one handler on Hono's synchronous path (its
  // speed is measured against a bare Deno.serve).
  const app = createHttpApp({ log });
  // Only when asked for: a middleware on every path takes the item read off
  // Hono's one-handler path.
  if (options.allowOrigin !== undefined) {
    app.use(cors({
      allowed: options.allowOrigin,
      methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
      headers: ["Authorization", "Content-Type", "Last-Event-ID"],
      expose: EXPOSED_HEADERS.split(", "),
      setting: "MESSAGES_ALLOW_ORIGIN",
    }));
  }
  app.onError(storeErrors(log));
  // Our paths name their methods for the 405: the write middleware below is
  // registered for more methods than the list serves.
  app.notFound(unrouted(app, allowedMethods));
  if (options.metrics) app.use(httpMetrics(options.metrics));
  // Ready when the store returns a read.
  app.get("/readyz", readyzHandler(() => storeReadiness(store)));
  const item = `${MESSAGES_PATH}/:id`;
  const writeMethods = ["POST", "PUT", "PATCH", "DELETE"];
  const paths = [MESSAGES_PATH, item];
  if (options.feed) {
    // Before the write middleware of the item path, which would take it for an id.
    app.on(
      writeMethods,
      EVENTS_PATH,
      (c) => methodNotAllowed(c, ["GET", "HEAD"]),
    );
  }
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

  // Reads reuse the serialized responses until the store's revision moves, and ask
  // the cache before the store, synchronously: an item read through Hono and this
  // cache costs about a microsecond in process. The list has a cache of its own:
  // no path segment may ever hit its entry.
  const revision = () => store.revision();
  // Query responses are up to 1000 records each: fewer of them are kept.
  const listCache = createJsonCache(revision, 256);
  const itemCache = createJsonCache(revision);
  const renderList = async () => ({ body: await store.list() });
  // A list query is cached by its whole URL (its Link header names it). A
  // malformed query rejects with its 400, so it is never cached.
  const renderQuery = async (url: string) => {
    const target = requestUrl(url);
    const { query, paging } = parseListQuery(target.searchParams);
    const { total, records } = await store.query(query);
    return {
      body: records,
      headers: {
        "x-total-count": String(total),
        link: pageLinks(target, paging, total),
      },
    };
  };
  // Items are cached by their path segment, so a hit skips parsing the id.
  const renderItem = async (segment: string) => {
    const id = parseMessageId(segment);
    if (id === undefined) return undefined;
    const body = await store.get(id);
    return body && { body };
  };
  const read = async (
    c: Context,
    cache: JsonCache,
    key: string,
    render: (key: string) => Promise<Rendered | undefined>,
  ) => {
    const found = await cache.load(key, render);
    if (found === undefined) throw notFound(c);
    return respond(c, found);
  };

  app.get(MESSAGES_PATH, (c) => {
    const url = c.req.url;
    const search = url.indexOf("?");
    const [key, render] = search < 0 || search === url.length - 1
      ? ["list", renderList]
      : [url, renderQuery];
    const cached = listCache.get(key);
    return cached ? respond(c, cached) : read(c, listCache, key, render);
  });

  app.post(MESSAGES_PATH, async (c) => {
    const created = await store.create(parseMessageFields(await bodyText(c)));
    options.feed?.wake();
    return c.body(JSON.stringify(created), 201, {
      ...JSON_TYPE,
      location: `${MESSAGES_PATH}/${created.id}`,
    });
  });

  const { feed } = options;
  if (feed) {
    // Before the item route, whose id it would be taken for.
    app.get(EVENTS_PATH, (c) => {
      const params = new URL(c.req.url).searchParams;
      // Paging and sort are ignored, malformed or not (docs/messages.md).
      const filter = parseFilter(params);
      const lastEventId = parseLastEventId(
        c.req.header("last-event-id") ?? params.get("lastEventId"),
      );
      return new Response(feed.subscribe(filter, lastEventId), {
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-store",
          // nginx would hold the stream in its buffer.
          "x-accel-buffering": "no",
        },
      });
    });
  }

  app.get(item, (c) => {
    const segment = c.req.param("id") ?? "";
    const cached = itemCache.get(segment);
    return cached
      ? respond(c, cached)
      : read(c, itemCache, segment, renderItem);
  });

  const update =
    (parse: (body: string) => Partial<MessageFields>) => async (c: Context) => {
      const id = idOf(c);
      const fields = parse(await bodyText(c));
      const updated = await store.update(id, fields);
      if (!updated) throw notFound(c);
      options.feed?.wake();
      const { author, message } = updated;
      return c.body(JSON.stringify({ author, message }), 200, JSON_TYPE);
    };
  app.post(item, update(parseMessageFields));
  app.put(item, update(parseMessageFields));
  app.patch(item, update(parsePartialMessageFields));

  app.delete(item, async (c) => {
    if (!await store.delete(idOf(c))) throw notFound(c);
    options.feed?.wake();
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

/** The headers a browser's script may read from a list query's response. */
const EXPOSED_HEADERS = "X-Total-Count, Link, ETag";

/**
 * The methods of our paths, for the 405 of another method (a catch-all route would
 * put every GET on Hono's slower multi-handler path). An item path with a malformed
 * id names no record: 404.
 */
function allowedMethods(path: string): readonly string[] | undefined {
  if (path === MESSAGES_PATH) return ["GET", "HEAD", "POST"];
  if (path === EVENTS_PATH) return ["GET", "HEAD"];
  const segment = ITEM_PATTERN.exec(path)?.[1];
  if (segment !== undefined) {
    return parseMessageId(segment) === undefined
      ? []
      : ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
  }
  return undefined;
}

/**
 * The response of a cached JSON text: 304 with its `ETag` and no body when
 * `If-None-Match` names it, else 200. The response to HEAD (which runs the GET
 * route) carries the text's length; a GET response leaves it to Deno, whose
 * responses with a `Content-Length` header of ours take about a microsecond longer
 * to build.
 */
function respond(c: Context, found: JsonText): Response {
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

/**
 * The change a client resumes after (`Last-Event-ID` or `lastEventId`): a
 * sequence number; 400 for anything else.
 */
function parseLastEventId(raw: string | null | undefined): number | undefined {
  if (raw === null || raw === undefined || raw.trim() === "") return undefined;
  const value = /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!Number.isSafeInteger(value)) {
    throw new HTTPException(400, {
      message: `Invalid Last-Event-ID "${
        preview(raw)
      }": expected the id of an event of this feed (a change sequence number)`,
    });
  }
  return value;
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
