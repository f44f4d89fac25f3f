/**
 * The body of an HTTP/1.1 answer as a stream: framed by `Content-Length`, by chunked
 * transfer coding, or by the end of the connection; decoded like `fetch` does (see
 * `_decode.ts`).
 *
 * @module
 */
import type { ByteReader } from "./_byte_reader.ts";
import { decodedBody, isDecoded } from "./_decode.ts";
import { chunkSize, type Framing } from "./_framing.ts";
import { parseFields } from "./_wire.ts";
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

/** Bytes of the trailer section read at most. */
const MAX_TRAILER_BYTES = 16 * 1024;

/**
 * Builds the `Response` for `answer`, framed as `framing` says, reading its body
 * from `reader` as the consumer pulls, with its header pairs passed through
 * `rewrite` when given. `done(reusable)` is called once: with `true` when the whole
 * body was read, nothing more came, and the connection may carry another request;
 * with `false` otherwise (an invalid chunk, an early close, a cancel), which closes
 * the connection for good. `onRead` hears how the body is read: a coded body as it
 * is decoded (a part is a decoded one, and a failed decoding ends it with an
 * `InvalidResponseError`).
 */
export function answerBody(
  answer: Answer,
  framing: Framing,
  reader: ByteReader,
  done: (reusable: boolean) => void,
  rewrite?: HeaderRewrite,
  onRead?: BodyWatcher,
): Response {
  const finish = (reusable: boolean, error?: unknown) => {
    done(reusable);
    onRead?.("end", error);
  };
  const init = {
    status: answer.status,
    statusText: answer.statusText,
    headers: rewrite ? rewrite(answer.headers) : answer.headers,
  };
  const { keepAlive } = framing;
  if (
    framing.kind === "none" ||
    (framing.kind === "length" && framing.length === 0)
  ) {
    finish(keepAlive && reader.buffered === 0);
    return new Response(null, init);
  }
  const chunked = framing.kind === "chunked";
  let remaining = framing.kind === "length"
    ? framing.length
    : chunked
    ? 0
    : Infinity;
  const coding = answer.headers.find(([name]) => name === "content-encoding")
    ?.[1].toLowerCase();
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
            throw new InvalidResponseError(
              "Invalid chunk from the remote: its data is longer than its size",
            );
          }
          const size = chunkSize(await reader.readLine());
          if (size === 0) {
            await readTrailers(reader);
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
 * Reads the trailer section after the last chunk, checks it like a head (and refuses
 * framing fields in it), and drops it.
 */
export async function readTrailers(reader: ByteReader): Promise<void> {
  const lines: string[] = [];
  let size = 0;
  while (true) {
    const line = await reader.readLine(MAX_TRAILER_BYTES);
    if (line === "") break;
    size += line.length + 2;
    if (size > MAX_TRAILER_BYTES) {
      throw new InvalidResponseError(
        `Trailers too large from the remote: over ${MAX_TRAILER_BYTES} bytes`,
      );
    }
    lines.push(line);
  }
  for (const [name] of parseFields(lines)) {
    if (name === "content-length" || name === "transfer-encoding") {
      throw new InvalidResponseError(
        `Invalid trailer from the remote: "${name}" frames the body`,
      );
    }
  }
}
