/**
 * A bound on request bodies: 413 past it.
 *
 * @module
 */
import { concatBytes } from "./concat_bytes.ts";
import type { Context, MiddlewareHandler } from "hono";
import { unreadableBody } from "./_unreadable_body.ts";

/**
 * Middleware returning 413 `{"message": ...}` when a request body exceeds `maxBytes`
 * (declared or streamed). A body without a declared length is read here, up to the
 * limit, and handed on as bytes.
 *
 * Unlike Hono's `bodyLimit`, it never copies the request (a copy reads
 * `request.signal`, which makes Deno print a warning outside the log format).
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { limitBody } from "./limit_body.ts";
 *
 * const app = new Hono();
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
