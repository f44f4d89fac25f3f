/**
 * The body of an HTTP/1.1 answer as a stream: framed by `Content-Length`, by chunked
 * transfer coding, or by the end of the connection; decoded like `fetch` does (see
 * `_decode.ts`).
 *
 * @module
 */
import type { ByteReader } from "./_byte_reader.ts";
import { decodedBody, isDecoded } from "./_decode.ts";
import { InvalidResponseError } from "./invalid_response_error.ts";

/** A parsed answer head. */
export interface Answer {
  /** The answer was HTTP/1.0 (no keep-alive). */
  http10: boolean;
  /** Status code. */
  status: number;
  /** Reason phrase. */
  statusText: string;
  /** Header pairs, names in lower case, in order. */
  headers: [string, string][];
}

/** Rewrites an answer's header pairs before its `Response` is built. */
export type HeaderRewrite = (pairs: [string, string][]) => [string, string][];

const READ_SIZE = 64 * 1024;

/**
 * Hears how a body is read: `"wait"` when a part is asked for and has not come yet,
 * `"part"` when it came, and `"end"` once when the body ends (whole, cut short or
 * cancelled), with the error when it failed. Between a `"part"` and the next
 * `"wait"`, the reader of the body holds things up, not the one sending it.
 */
export type BodyWatcher = (
  event: "wait" | "part" | "end",
  error?: unknown,
) => void;

/**
 * Builds the `Response` for `answer`, reading its body from `reader` as the consumer
 * pulls, with its header pairs passed through `rewrite` when given (framing and
 * coding are read from the pairs as received). `finish(reusable)` is called once:
 * with `true` when the whole body was read and the connection may carry another
 * request, with `false` otherwise. `onRead` hears how the body is read: a coded body
 * as it is decoded (a part is a decoded one, and a failed decoding ends it with an
 * `InvalidResponseError`). Throws an `InvalidResponseError` for a bad length.
 */
export function answerBody(
  answer: Answer,
  reader: ByteReader,
  method: string,
  done: (reusable: boolean) => void,
  rewrite?: HeaderRewrite,
  onRead?: BodyWatcher,
): Response {
  const finish = (reusable: boolean, error?: unknown) => {
    done(reusable);
    onRead?.("end", error);
  };
  const header = (name: string) =>
    answer.headers.find(([key]) => key === name)?.[1];
  const keepAlive = !answer.http10 &&
    !/(^|,)\s*close\s*($|,)/i.test(header("connection") ?? "");
  const init = {
    status: answer.status,
    statusText: answer.statusText,
    headers: rewrite ? rewrite(answer.headers) : answer.headers,
  };
  if (
    method === "HEAD" || answer.status === 204 || answer.status === 304
  ) {
    finish(keepAlive && reader.buffered === 0);
    return new Response(null, init);
  }
  const chunked = /(^|,)\s*chunked\s*$/i.test(
    header("transfer-encoding") ?? "",
  );
  const declared = contentLength(answer.headers);
  let remaining = chunked
    ? 0
    : declared === undefined
    ? Infinity
    : Number(declared);
  if (!chunked && !(remaining >= 0)) {
    finish(false);
    throw new InvalidResponseError("Invalid Content-Length from the remote");
  }
  if (remaining === 0 && !chunked) {
    finish(keepAlive && reader.buffered === 0);
    return new Response(null, init);
  }
  const coding = header("content-encoding")?.trim().toLowerCase();
  const decode = isDecoded(coding);
  if (!chunked && !decode && reader.buffered >= remaining) {
    // The whole (small) body came with the head: answer it as bytes, which the
    // server writes faster than a stream.
    // Response copies the bytes (a view into the reader's buffer) before the
    // connection goes back to the pool.
    const response = new Response(reader.take(remaining), init);
    finish(keepAlive && reader.buffered === 0);
    return response;
  }
  // A coded body is watched after its decoding, which can fail too.
  const watch = decode ? undefined : onRead;
  let ended = false;
  const end = (reusable: boolean, error?: unknown) => {
    if (ended) return;
    ended = true;
    done(reusable);
    watch?.("end", error);
  };
  let afterChunk = false; // a chunk's data is followed by CRLF
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      watch?.("wait");
      try {
        if (chunked && remaining === 0) {
          if (afterChunk && (await reader.readLine()) !== "") {
            throw new InvalidResponseError("Invalid chunk from the remote");
          }
          const size = parseInt((await reader.readLine()).split(";")[0]!, 16);
          if (!(size >= 0)) {
            throw new InvalidResponseError("Invalid chunk from the remote");
          }
          if (size === 0) {
            while ((await reader.readLine()) !== "") {
              // trailers are dropped
            }
            controller.close();
            return end(keepAlive && reader.buffered === 0);
          }
          remaining = size;
          afterChunk = true;
        }
        const bytes = await reader.readSome(Math.min(remaining, READ_SIZE));
        if (bytes === null) {
          if (remaining === Infinity) {
            controller.close();
            return end(false);
          }
          throw new TypeError("The remote closed the connection mid-answer");
        }
        remaining -= bytes.length;
        watch?.("part");
        controller.enqueue(bytes);
        if (!chunked && remaining === 0) {
          controller.close();
          end(keepAlive && reader.buffered === 0);
        }
      } catch (error) {
        end(false, error);
        controller.error(error);
      }
    },
    cancel() {
      end(false);
    },
  });
  return new Response(
    decode ? decodedBody(body, coding!, onRead) : body,
    init,
  );
}

/**
 * The declared body length: `undefined` when none, and `"conflict"` (no number) when
 * several values disagree, which RFC 9112 says must not be guessed at.
 */
function contentLength(headers: [string, string][]): string | undefined {
  let length: string | undefined;
  for (const [name, value] of headers) {
    if (name !== "content-length") continue;
    for (const part of value.split(",")) {
      const trimmed = part.trim();
      if (length !== undefined && trimmed !== length) return "conflict";
      length = trimmed;
    }
  }
  return length;
}
