/**
 * Writing to a connection: whole byte runs, and streamed request bodies.
 *
 * @module
 */
import { concatBytes } from "../concat_bytes.ts";
import { latin1 } from "./_wire.ts";
import { RequestLengthMismatchError } from "./errors.ts";

/**
 * Writes a streamed request body, chunked or of the declared `length`; resolves
 * whether it all went out. A body longer or shorter than `length` closes the
 * connection (its excess never goes out: the server would read it as the start of
 * another request) and rejects with a `RequestLengthMismatchError` (a `TypeError`,
 * as `fetch` refuses such a body).
 */
export async function writeBody(
  conn: Deno.Conn,
  body: ReadableStream<Uint8Array>,
  chunked: boolean,
  length = 0,
): Promise<boolean> {
  let written = 0;
  try {
    for await (const chunk of body) {
      if (chunk.length === 0) continue;
      if (!chunked) {
        written += chunk.length;
        if (written > length) break;
        await writeAll(conn, chunk);
        continue;
      }
      const size = latin1(`${chunk.length.toString(16)}\r\n`);
      await writeAll(conn, concatBytes([size, chunk, CRLF]));
    }
    if (chunked) await writeAll(conn, LAST_CHUNK);
  } catch {
    // The server may respond (and close) before reading the whole body.
    return false;
  }
  if (chunked || written === length) return true;
  try {
    conn.close();
  } catch {
    // already closed
  }
  throw new RequestLengthMismatchError(
    `Invalid request body: ${
      written > length ? "more" : "fewer"
    } bytes than its Content-Length ${length}`,
  );
}

const CRLF = new Uint8Array([13, 10]);
const LAST_CHUNK = new Uint8Array([48, 13, 10, 13, 10]);

/** Writes all of `bytes` (a write may take only part). */
export async function writeAll(
  conn: Deno.Conn,
  bytes: Uint8Array,
): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    written += await conn.write(bytes.subarray(written));
  }
}
