/**
 * Decoding a response body's content coding as `fetch` does, forgiving what browsers
 * and curl forgive: `deflate` without its zlib wrapper (raw deflate, which some
 * servers send), and an empty body under any coding.
 *
 * @module
 */
import { ContentDecodingError } from "./errors.ts";

/** Codings decoded on the way, as `fetch` does, with their stream format. */
const FORMATS: Record<string, CompressionFormat> = {
  "gzip": "gzip",
  "x-gzip": "gzip",
  "deflate": "deflate",
  "br": "brotli" as CompressionFormat,
};

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

/**
 * `body` decoded from `coding` (one {@linkcode isDecoded} accepts). An empty body
 * stays empty; `deflate` is read with or without its zlib wrapper. The failure of
 * `body` itself comes out as it is; a body that does not decode fails with an
 * {@linkcode ContentDecodingError}.
 */
export function decodedBody(
  body: ReadableStream<Uint8Array>,
  coding: string,
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

  /** Reads the first bytes, picks the format; `null` for an empty body. */
  const open = async () => {
    const head: Uint8Array[] = [];
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
    const coded = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const first = head.shift();
        if (first) return controller.enqueue(first);
        const { done, value } = await read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => source.cancel(reason),
    });
    return coded.pipeThrough(
      new DecompressionStream(format) as unknown as TransformStream<
        Uint8Array,
        Uint8Array
      >,
    ).getReader();
  };

  let decoded: ReadableStreamDefaultReader<Uint8Array> | null | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (decoded === undefined) decoded = await open();
        while (decoded) {
          const { done, value } = await decoded.read();
          if (done) break;
          if (value.length === 0) continue;
          return controller.enqueue(value);
        }
        controller.close();
      } catch (error) {
        const failure = sourceError
          ? sourceError.error
          : new ContentDecodingError(
            `Invalid ${coding} body from the remote: ${
              error instanceof Error ? error.message : String(error)
            }`,
            { cause: error },
          );
        controller.error(failure);
      }
    },
    cancel(reason) {
      return decoded ? decoded.cancel(reason) : source.cancel(reason);
    },
  });
}
