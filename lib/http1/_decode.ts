/**
 * Decoding a response body's content coding as `fetch` does, forgiving what browsers
 * and curl forgive: `deflate` without its zlib wrapper (raw deflate, which some
 * servers send), and an empty body under any coding.
 *
 * Bounded both ways: the decoder hands out at most {@linkcode DECODED_PART_BYTES}
 * at a time and decodes further only when that part was taken (node:zlib's
 * streaming decoders, which stop at a full output buffer; `DecompressionStream`
 * returns all that one input chunk decodes to at once: 841 bytes of brotli are
 * 1 GiB of zeros), and a body decoding to more than `maxBytes` in all fails with a
 * {@linkcode DecodedTooLargeError}.
 *
 * @module
 */
import {
  createBrotliDecompress,
  createGunzip,
  createInflate,
  createInflateRaw,
} from "node:zlib";
import type { Transform } from "node:stream";
import { ContentDecodingError, DecodedTooLargeError } from "./errors.ts";

/** The stream formats of the codings decoded on the way. */
type Format = "gzip" | "deflate" | "deflate-raw" | "brotli";

/** Codings decoded on the way, as `fetch` does, with their stream format. */
const FORMATS: Record<string, Format> = {
  "gzip": "gzip",
  "x-gzip": "gzip",
  "deflate": "deflate",
  "br": "brotli",
};

/** Bytes of one decoded part at most: what the decoder holds at once. */
export const DECODED_PART_BYTES = 64 * 1024;

/** Whether bodies in `coding` (trimmed, lower case) are decoded. */
export function isDecoded(coding: string | undefined): boolean {
  return coding !== undefined && Object.hasOwn(FORMATS, coding);
}

/**
 * Whether `first` and `second` open a zlib stream (RFC 1950): compression method 8
 * (deflate) and a header checksum that is a multiple of 31.
 */
export function isZlibHeader(first: number, second: number): boolean {
  return (first & 0x0f) === 8 && (first * 256 + second) % 31 === 0;
}

function decoder(format: Format): Transform {
  const options = { chunkSize: DECODED_PART_BYTES };
  switch (format) {
    case "gzip":
      return createGunzip(options);
    case "deflate":
      return createInflate(options);
    case "deflate-raw":
      return createInflateRaw(options);
    case "brotli":
      return createBrotliDecompress(options);
  }
}

/**
 * `body` decoded from `coding` (one {@linkcode isDecoded} accepts), in parts of at
 * most {@linkcode DECODED_PART_BYTES}, each decoded when the consumer asks for it. An
 * empty body stays empty; `deflate` is read with or without its zlib wrapper. The
 * failure of `body` itself comes out as it is; a body that does not decode fails
 * with a {@linkcode ContentDecodingError}, one that decodes to over `maxBytes` with
 * a {@linkcode DecodedTooLargeError} (and `body` is cancelled).
 */
export function decodedBody(
  body: ReadableStream<Uint8Array>,
  coding: string,
  maxBytes = Infinity,
): ReadableStream<Uint8Array> {
  const source = body.getReader();
  let sourceError: { error: unknown } | undefined;
  const read = async () => {
    try {
      return await source.read();
    } catch (error) {
      sourceError = { error };
      throw error;
    }
  };
  // What it takes to tell raw deflate from zlib: two bytes.
  const wanted = coding === "deflate" ? 2 : 1;
  const head: Uint8Array[] = [];

  /** Reads the first bytes, picks the format; `null` for an empty body. */
  const open = async (): Promise<Transform | null> => {
    let size = 0;
    while (size < wanted) {
      const { done, value } = await read();
      if (done) break;
      head.push(value);
      size += value.length;
    }
    if (size === 0) return null;
    let format = FORMATS[coding]!;
    if (format === "deflate") {
      const [first = 0, second = 0] = head.flatMap((chunk) => [
        ...chunk.subarray(0, 2),
      ]);
      if (!isZlibHeader(first, second)) format = "deflate-raw";
    }
    const stream = decoder(format);
    stream.on("error", (error: unknown) => {
      failure ??= { error };
      wake();
    });
    stream.on("end", () => {
      ended = true;
      wake();
    });
    stream.on("readable", wake);
    return stream;
  };

  let stream: Transform | null | undefined;
  let failure: { error: unknown } | undefined;
  let ended = false;
  let inputEnded = false;
  let feeding = false; // an input chunk is in the decoder
  let total = 0;
  let waiting: (() => void) | undefined;
  const wake = () => {
    const resume = waiting;
    waiting = undefined;
    resume?.();
  };

  /** The next decoded part, `null` at the end. */
  const next = async (decoder: Transform): Promise<Uint8Array | null> => {
    while (true) {
      const part = decoder.read() as Uint8Array | null;
      if (part !== null) return part;
      if (failure) throw failure.error;
      if (ended) return null;
      if (!feeding && !inputEnded) {
        const { done, value } = head.length > 0
          ? { done: false, value: head.shift()! }
          : await read();
        if (done) {
          inputEnded = true;
          decoder.end();
        } else {
          feeding = true;
          decoder.write(value, () => {
            feeding = false;
            wake();
          });
        }
        continue;
      }
      await new Promise<void>((resolve) => waiting = resolve);
    }
  };

  const stop = (reason: unknown) => {
    stream?.destroy();
    return source.cancel(reason).catch(() => {});
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (stream === undefined) stream = await open();
        while (stream) {
          const part = await next(stream);
          if (part === null) break;
          if (part.length === 0) continue;
          total += part.length;
          if (total > maxBytes) {
            const error = new DecodedTooLargeError(coding, maxBytes);
            await stop(error);
            return controller.error(error);
          }
          // A plain Uint8Array: consumers need not know node:buffer.
          return controller.enqueue(
            new Uint8Array(part.buffer, part.byteOffset, part.byteLength),
          );
        }
        controller.close();
      } catch (error) {
        const failed = sourceError
          ? sourceError.error
          : new ContentDecodingError(
            `Invalid ${coding} body from the server: ${
              error instanceof Error ? error.message : String(error)
            }`,
            { cause: error },
          );
        await stop(failed);
        controller.error(failed);
      }
    },
    cancel(reason) {
      return stop(reason);
    },
  }, { highWaterMark: 0 });
}
