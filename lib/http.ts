/**
 * The HTTP app of a role: a Hono app with the product's conventions (health check,
 * JSON errors, 405 with `Allow`, HEAD lengths) and bounded request bodies. `serve.ts`
 * serves it.
 *
 * @module
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { concatBytes } from "./concat_bytes.ts";
import { errorText, type Log } from "./log.ts";
import { methodNotAllowed } from "./method_not_allowed.ts";

/** Options of {@linkcode createHttpApp}. */
export interface HttpAppOptions {
  /** Where unexpected errors are logged. */
  log: Log;
  /** Answer `GET /healthz` with `{"status":"ok"}`. @default true */
  healthz?: boolean;
  /**
   * The methods of a path that has no route of its own: a path matched by a
   * parameter (`/items/:id`), or one whose middleware is registered for more
   * methods than it answers. `undefined` leaves the path to the route table.
   * @default the route table alone
   */
  allowedMethods?: (path: string) => readonly string[] | undefined;
  /**
   * Middleware run first, around every answer: the app's own (health check, 404,
   * 405, errors) and the {@linkcode HttpAppOptions.headers} added to them included.
   * It may answer before anything else runs, or change any answer. @default none
   */
  around?: MiddlewareHandler;
  /**
   * Headers every answer carries (errors, 404s and 405s included); an answer that
   * sets one itself keeps its own. @default none
   */
  headers?: Readonly<Record<string, string>>;
  /**
   * The routes put the {@linkcode HttpAppOptions.headers} on their answers
   * themselves, so they need no middleware (which costs every call, and takes a
   * route with a single handler off Hono's direct path); the app's own answers
   * (health check, 404, 405, errors) still get them. @default false
   */
  headersInRoutes?: boolean;
  /**
   * Measure every route's answer to HEAD in a middleware, so it carries the length
   * of the GET answer. An app whose GET routes set `Content-Length` themselves
   * passes `false`: a route with a single handler then stays on Hono's synchronous
   * path (the messages role's item reads). The app's own answers (health check,
   * 404, 405, errors) carry their length either way. @default true
   */
  headLength?: boolean;
}

/**
 * Returns a Hono app with `GET /healthz`, JSON error bodies `{"message": ...}` for
 * `HTTPException`s and 404s, 405 with `Allow` (see `methodNotAllowed`) for another
 * method on a path that has routes of its own, and a logged 500 for anything else.
 * Every request of a role goes through its app, so middleware applies to all.
 *
 * Throw `new HTTPException(status, { message })` from a handler to answer an error;
 * pass `res` instead to answer a body of your own (an empty one, for instance).
 *
 * @example
 * ```ts
 * import { createLog } from "./log.ts";
 *
 * const app = createHttpApp({ log: createLog("hello") });
 * app.get("/hello", (c) => c.json({ hello: "world" }));
 * const response = await app.request("/hello");
 * await response.json(); // { hello: "world" }
 * ```
 */
export function createHttpApp(options: HttpAppOptions): Hono {
  const app = new Hono();
  if (options.around) app.use(options.around);
  // The headers the app's own answers need, when no middleware adds them.
  const own = options.headersInRoutes ? options.headers : undefined;
  if (options.headers && !own) app.use(answerHeaders(options.headers));
  if (options.headLength ?? true) app.use(headLength);
  if (options.healthz ?? true) {
    const headers = own ? { ...own, ...HEALTHZ_HEADERS } : HEALTHZ_HEADERS;
    app.get("/healthz", (c) => c.body(HEALTHZ, 200, headers));
  }
  const measured = (c: Context, response: Response) =>
    measuredHead(c, own ? withMissing(response, own) : response);
  app.notFound((c) => {
    const path = c.req.path;
    const allowed = options.allowedMethods?.(path) ?? routedMethods(app, path);
    if (allowed.length === 0) {
      return measured(c, c.json({ message: "Not found" }, 404));
    }
    return measured(c, methodNotAllowed(c, allowed));
  });
  app.onError((error, c) => {
    if (error instanceof HTTPException) {
      if (error.res) return measured(c, error.getResponse());
      return measured(
        c,
        c.json(
          { message: error.message || statusText(error.status) },
          error.status,
        ),
      );
    }
    options.log.error(
      `${c.req.method} ${c.req.path} failed: ${errorText(error)}`,
    );
    return measured(c, c.json({ message: "Internal server error" }, 500));
  });
  return app;
}

const HEALTHZ = '{"status":"ok"}';
const HEALTHZ_HEADERS = {
  "content-type": "application/json",
  "content-length": String(HEALTHZ.length),
};

/** `response` with those of `headers` it lacks (the app's own answers are mutable). */
function withMissing(
  response: Response,
  headers: Readonly<Record<string, string>>,
): Response {
  for (const [name, value] of Object.entries(headers)) {
    if (!response.headers.has(name)) response.headers.set(name, value);
  }
  return response;
}

/** `response` with its `Content-Length` when it answers HEAD (see `headLength`). */
async function measuredHead(c: Context, response: Response): Promise<Response> {
  if (
    c.req.method !== "HEAD" || response.body === null ||
    response.headers.has("content-length")
  ) {
    return response;
  }
  const length = (await response.clone().arrayBuffer()).byteLength;
  response.headers.set("content-length", String(length));
  return response;
}

/**
 * Hono answers HEAD by running the GET route (which sees HEAD) and dropping its body,
 * and Deno then sends `Content-Length: 0`. This measures the body the route gave, so
 * the HEAD answer carries the length the GET answer would, as RFC 9110 (section
 * 9.3.2) asks. The route runs once.
 */
const headLength: MiddlewareHandler = async (c, next) => {
  await next();
  if (
    c.req.method !== "HEAD" || c.res.body === null ||
    c.res.headers.has("content-length")
  ) {
    return;
  }
  const length = (await c.res.arrayBuffer()).byteLength;
  c.res.headers.set("content-length", String(length));
};

/** Middleware adding `headers` to every answer that lacks them. */
function answerHeaders(
  headers: Readonly<Record<string, string>>,
): MiddlewareHandler {
  const entries = Object.entries(headers);
  return async function answerHeadersMiddleware(c, next) {
    await next();
    for (const [name, value] of entries) {
      if (!c.res.headers.has(name)) c.res.headers.set(name, value);
    }
  };
}

/** The methods routed on exactly `path` (GET implies HEAD); middleware aside. */
function routedMethods(app: Hono, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.path !== path || route.method === "ALL") continue;
    methods.add(route.method);
    if (route.method === "GET") methods.add("HEAD");
  }
  return [...methods];
}

function statusText(status: number): string {
  return {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    413: "Request body too large",
  }[status] ?? `HTTP ${status}`;
}

/**
 * Middleware answering 413 `{"message": ...}` when a request body exceeds `maxBytes`
 * (declared or streamed). A body without a declared length is read here, up to the
 * limit, and handed on as bytes.
 *
 * Unlike Hono's `bodyLimit`, it never copies the request (a copy reads
 * `request.signal`, which makes Deno print a warning outside the log format).
 *
 * @example
 * ```ts
 * import { createLog } from "./log.ts";
 *
 * const app = createHttpApp({ log: createLog("example") });
 * app.use("/api/*", limitBody(64 * 1024));
 * ```
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const request = c.req.raw;
    const declared = request.headers.get("content-length");
    if (declared !== null && Number(declared) > maxBytes) {
      return tooLarge(c, maxBytes);
    }
    // A declared length is enforced by the server itself.
    if (request.body === null || declared !== null) return await next();
    const bytes = await readAtMost(request.body, maxBytes);
    if (!bytes) return tooLarge(c, maxBytes);
    c.req.raw = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body: bytes,
    });
    await next();
  };
}

/**
 * The request body as text. A body that cannot be read (the client went away
 * mid-upload) or is not UTF-8 (which would be stored with replacement characters)
 * is a 400, not a server error.
 *
 * @example
 * ```ts
 * import { createLog } from "./log.ts";
 *
 * const app = createHttpApp({ log: createLog("example") });
 * app.post("/items", async (c) => c.json(JSON.parse(await bodyText(c))));
 * ```
 */
export async function bodyText(c: Context): Promise<string> {
  let bytes: ArrayBuffer;
  try {
    bytes = await c.req.arrayBuffer();
  } catch {
    throw unreadableBody();
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new HTTPException(400, {
      message: "Invalid body: it is not valid UTF-8 text",
    });
  }
}

function unreadableBody(): HTTPException {
  return new HTTPException(400, {
    message: "The request body could not be read: the upload was cut short",
  });
}

function tooLarge(c: Context, maxBytes: number): Response {
  return c.json({
    message: `Request body too large: the limit is ${maxBytes} bytes`,
  }, 413);
}

/** The whole stream as bytes, or `undefined` (and the stream cancelled) past `max`. */
async function readAtMost(
  stream: ReadableStream<Uint8Array>,
  max: number,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  while (true) {
    const { done, value } = await reader.read().catch(() => {
      throw unreadableBody();
    });
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}
