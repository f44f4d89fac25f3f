/**
 * The body of an HTTP/1.1 response as a stream: framed by `Content-Length`, by chunked
 * transfer coding, or by the end of the connection; decoded like `fetch` does (see
 * `_decode.ts`).
 *
 * @module
 */
import type { ByteReader } from "./_byte_reader.ts";
import { decodedBody, isDecoded } from "./_decode.ts";
import { chunkSize, type Framing } from "./_framing.ts";
import { parseFields, type ResponseHead } from "./_wire.ts";
import {
  HeadersOverflowError,
  InvalidFramingError,
  InvalidHeaderError,
  ResponseLengthMismatchError,
} from "./errors.ts";
import { socketFailure } from "./_socket_failure.ts";

const READ_SIZE = 64 * 1024;

/** Bytes of the trailer section read at most. */
const MAX_TRAILER_BYTES = 16 * 1024;

/**
 * The body of `response`, framed as `framing` says: `null` when there is none, bytes
 * (a copy) when it came whole with the head and is not coded, otherwise a stream
 * read from `reader` as the consumer pulls (decoded when its coding is one `fetch`
 * decodes: then `decoded`). `done(reusable)` is called once: with `true` when the
 * whole body was read, nothing more came, and the connection may carry another
 * request; with `false` otherwise (an invalid chunk, an early close, a cancel),
 * which closes the connection for good. A body that does not decode fails with a
 * `ContentDecodingError`, one cut short with a `ResponseLengthMismatchError` (within
 * a declared length) or a `ConnectionClosedError` (at a chunk line), one that
 * decodes to over `maxDecodedBytes` with a `DecodedTooLargeError`.
 */
export function responseBody(
  response: ResponseHead,
  framing: Framing,
  reader: ByteReader,
  done: (reusable: boolean) => void,
  maxDecodedBytes = Infinity,
): {
  body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null;
  decoded: boolean;
} {
  const { keepAlive } = framing;
  if (
    framing.kind === "none" ||
    (framing.kind === "length" && framing.length === 0)
  ) {
    done(keepAlive && reader.buffered === 0);
    return { body: null, decoded: false };
  }
  const chunked = framing.kind === "chunked";
  let remaining = framing.kind === "length"
    ? framing.length
    : chunked
    ? 0
    : Infinity;
  const coding = response.headers.find(([name]) => name === "content-encoding")
    ?.[1].toLowerCase();
  const decode = isDecoded(coding);
  if (!chunked && !decode && reader.buffered >= remaining) {
    // The whole (small) body came with the head: bytes, copied out of the reader's
    // buffer before the connection goes back to the pool.
    const body = reader.take(remaining).slice();
    done(keepAlive && reader.buffered === 0);
    return { body, decoded: false };
  }
  let ended = false;
  const end = (reusable: boolean) => {
    if (ended) return;
    ended = true;
    done(reusable);
  };
  let afterChunk = false; // a chunk's data is followed by CRLF
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (chunked && remaining === 0) {
          if (afterChunk && (await reader.readLine()) !== "") {
            throw new InvalidFramingError(
              "Invalid chunk from the server: its data is longer than its size",
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
          throw new ResponseLengthMismatchError();
        }
        remaining -= bytes.length;
        controller.enqueue(bytes);
        if (!chunked && remaining === 0) {
          controller.close();
          end(keepAlive && reader.buffered === 0);
        }
      } catch (error) {
        end(false);
        controller.error(socketFailure(error));
      }
    },
    cancel() {
      end(false);
    },
  });
  return decode
    ? { body: decodedBody(body, coding!, maxDecodedBytes), decoded: true }
    : { body, decoded: false };
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
      throw new HeadersOverflowError(
        `Trailers too large from the server: over ${MAX_TRAILER_BYTES} bytes`,
      );
    }
    lines.push(line);
  }
  for (const [name] of parseFields(lines)) {
    if (name === "content-length" || name === "transfer-encoding") {
      throw new InvalidHeaderError(
        `Invalid trailer from the server: "${name}" frames the body`,
      );
    }
  }
}
