/**
 * The bound on a decoded body (`PROXY_MAX_RESPONSE_BYTES`): counted as the body
 * passes, and read ahead before the response's head goes out, so that a body found
 * over it early is a 502 rather than a response cut short.
 *
 * @module
 */
import { DecodedTooLargeError } from "../../lib/http1/errors.ts";

/** Decoded bytes read ahead, at most, before the response's head goes out. */
export const READ_AHEAD_BYTES = 1024 * 1024;

/**
 * `body` (decoded from `coding` on the way), failing with a
 * {@linkcode DecodedTooLargeError} once it passes `maxBytes` (and cancelling
 * `body`); whichever transport decoded it.
 *
 * @example
 * ```ts
 * const body = boundedBody(new Response("x".repeat(10)).body!, "gzip", 4);
 * await new Response(body).text().catch((error) => error.code); // "HTTP1_DECODED_TOO_LARGE"
 * ```
 */
export function boundedBody(
  body: ReadableStream<Uint8Array>,
  coding: string,
  maxBytes: number,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      total += value.length;
      if (total > maxBytes) {
        const error = new DecodedTooLargeError(coding, maxBytes);
        await reader.cancel(error).catch(() => {});
        return controller.error(error);
      }
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}

/**
 * `body` as it will be passed on, once up to `bytes` of it (or all, when shorter)
 * were read; rejects with the body's error when it fails within them.
 *
 * @example
 * ```ts
 * const body = await readAhead(new Response("abc").body!, 1024);
 * await new Response(body).text(); // "abc"
 * ```
 */
export async function readAhead(
  body: ReadableStream<Uint8Array>,
  bytes: number,
): Promise<ReadableStream<Uint8Array>> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  while (size < bytes) {
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      break;
    }
    parts.push(value);
    size += value.length;
  }
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const part = parts.shift();
      if (part !== undefined) return controller.enqueue(part);
      if (ended) return controller.close();
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  }, { highWaterMark: 0 });
}
