/**
 * The HTTP app of a role: a Hono app with what every role answers (health check,
 * JSON errors, 404 and 405 with `Allow`), and bounded request bodies. The rest is
 * composed with `app.use` by the roles that need it (`head_length.ts`), or called
 * inside a route where a middleware would cost speed. `serve.ts` serves it.
 *
 * @module
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { healthCheck } from "./health_check.ts";
import { jsonErrors } from "./json_errors.ts";
import type { Log } from "./log.ts";
import { unrouted } from "./unrouted.ts";

/** Dependencies of {@linkcode createHttpApp}. */
export interface HttpAppOptions {
  /** Where unexpected errors are logged. */
  log: Log;
}

/**
 * Returns a Hono app with `GET /healthz` (`health_check.ts`), JSON error bodies
 * `{"message": ...}` for `HTTPException`s and a logged 500 for anything else
 * (`json_errors.ts`), and 405 with `Allow` for another method on a path that has
 * routes of its own, else 404 (`unrouted.ts`). Its own responses to HEAD carry their
 * length; routes get that rule from `headLength()` (`head_length.ts`).
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
  app.get("/healthz", healthCheck);
  app.notFound(unrouted(app));
  app.onError(jsonErrors(options.log));
  return app;
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
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}
