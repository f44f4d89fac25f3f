/**
 * Writing to a connection: whole byte runs, and streamed request bodies.
 *
 * @module
 */
import { latin1 } from "./_wire.ts";

/** Writes a streamed request body; resolves whether it all went out. */
export async function writeBody(
  conn: Deno.Conn,
  body: ReadableStream<Uint8Array>,
  chunked: boolean,
): Promise<boolean> {
  try {
    for await (const chunk of body) {
      if (chunk.length === 0) continue;
      if (!chunked) {
        await writeAll(conn, chunk);
        continue;
      }
      const size = latin1(`${chunk.length.toString(16)}\r\n`);
      await writeAll(conn, concat(concat(size, chunk), CRLF));
    }
    if (chunked) await writeAll(conn, LAST_CHUNK);
    return true;
  } catch {
    // The remote may answer (and close) before reading the whole body.
    return false;
  }
}

const CRLF = new Uint8Array([13, 10]);
const LAST_CHUNK = new Uint8Array([48, 13, 10, 13, 10]);

/** The bytes of `a` then `b`, in a new array. */
export function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

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
