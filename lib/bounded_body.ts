/**
 * Reading a peer's body whole, within a bound: a body over it (a decompression
 * bomb decodes 841 bytes to 1 GiB) fails and is cancelled, instead of filling the
 * memory as `response.arrayBuffer()` or `.text()` would.
 *
 * @module
 */
import { concatBytes } from "./concat_bytes.ts";
import { decodedBody, isDecoded } from "./http1/_decode.ts";

/**
 * A body longer than its reader's bound. `maxBytes` says which.
 *
 * @example
 * ```ts
 * new BodyTooLargeError(1024).code; // "BODY_TOO_LARGE"
 * ```
 */
export class BodyTooLargeError extends Error {
  /** `"BODY_TOO_LARGE"`. */
  readonly code = "BODY_TOO_LARGE";
  /** The bound, in bytes. */
  readonly maxBytes: number;
  /** Builds the error for a body over `maxBytes`. */
  constructor(maxBytes: number) {
    super(`The response body is over ${maxBytes} bytes`);
    this.name = "BodyTooLargeError";
    this.maxBytes = maxBytes;
  }
}

/**
 * The bytes of `body` (a `Response`'s, or any stream), failing with a
 * {@linkcode BodyTooLargeError} as soon as they pass `maxBytes` (the stream is then
 * cancelled; what was read is let go). A body that fails mid-way rejects with its
 * error.
 *
 * @example
 * ```ts
 * const bytes = await boundedBytes(new Response("hello").body, 1024);
 * bytes.length; // 5
 * await boundedBytes(new Response("hello").body, 4).catch((error) => error.code); // "BODY_TOO_LARGE"
 * ```
 */
export async function boundedBytes(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      const error = new BodyTooLargeError(maxBytes);
      await reader.cancel(error).catch(() => {});
      throw error;
    }
    parts.push(value);
  }
  return concatBytes(parts, size);
}

/**
 * The bytes of `response`'s body, decoded from its `Content-Encoding` (gzip,
 * deflate, br) in bounded parts, within `maxBytes` decoded (see
 * {@linkcode boundedBytes}). For a `fetch` made with `Accept-Encoding: identity`:
 * Deno's `fetch` then leaves a coded body as it came (it decodes only the codings
 * it asked for), and this decodes it with the decoder of `http1/_decode.ts`, whose
 * parts the bound stops (tested against 1 GiB bombs), whatever the peer sends.
 *
 * @example
 * ```ts
 * const response = await fetch("http://127.0.0.1:8003/data", {
 *   headers: { "accept-encoding": "identity" },
 * });
 * const bytes = await responseBytes(response, 64 << 20);
 * ```
 */
export async function responseBytes(
  response: Response,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const coding = response.headers.get("content-encoding")?.trim()
    .toLowerCase();
  const body = response.body !== null && isDecoded(coding)
    ? decodedBody(response.body, coding!)
    : response.body;
  return await boundedBytes(body, maxBytes);
}

/** What {@linkcode readResponseText} read: the text, or why there is none. */
export type ResponseText =
  | { text: string; unread?: undefined }
  | { text: ""; unread: Error };

/**
 * The body of `response` as UTF-8 text, read as {@linkcode responseBytes} reads it;
 * when it cannot be read (over `maxBytes`, a coding that does not decode, the
 * connection cut), no text and the reason (`unread`). The response's status still
 * stands: a peer that accepted a request has not refused it because its body is
 * broken, and a refusal keeps its status.
 *
 * @example
 * ```ts
 * await readResponseText(new Response("hello"), 1024); // { text: "hello" }
 * const { unread } = await readResponseText(new Response("hello"), 4);
 * unread instanceof BodyTooLargeError; // true
 * ```
 */
export async function readResponseText(
  response: Response,
  maxBytes: number,
): Promise<ResponseText> {
  try {
    return {
      text: new TextDecoder().decode(await responseBytes(response, maxBytes)),
    };
  } catch (error) {
    return {
      text: "",
      unread: error instanceof Error ? error : new Error(String(error)),
    };
  }
}
