/**
 * The subscribers of the feed bench, in a process of their own (so their reading
 * neither slows the server's process nor delays the bench's creates and their
 * timestamps): `deno run -A bench/_feed_subscribers.ts BASE COUNT OUT`.
 *
 * Opens COUNT streams of `BASE/api/message/resource/events` over raw HTTP/1.1
 * connections, prints `open` once every stream has started, then records, for every
 * event of a record whose message is `f<n>f`, `n` and the wall-clock time it was
 * read (`performance.timeOrigin + performance.now()`, in ms, comparable across
 * processes). On a line `stop` (or the end of stdin) it writes the records to OUT
 * (a `Float64Array` of `n, time` pairs), prints `done` and how many reads it
 * made, and exits.
 *
 * The streams are scanned as bytes (`Buffer.indexOf`, native), with no decoding:
 * the bench's own cost per event stays far below the server's.
 *
 * @module
 */
import { Buffer } from "node:buffer";

const PATH = "/api/message/resource/events";
const MARK = Buffer.from('"message":"f');
const OPENED = Buffer.from("\nid: ");
const F = "f".charCodeAt(0);
const ZERO = "0".charCodeAt(0);

if (import.meta.main) {
  const [base = "", countText = "1000", out = ""] = Deno.args;
  await main(base, Number(countText), out);
}

async function main(base: string, count: number, out: string): Promise<void> {
  const { hostname, port } = new URL(base);
  let records = new Float64Array(1 << 20);
  let length = 0;
  const record = (n: number, at: number) => {
    if (length + 2 > records.length) {
      const grown = new Float64Array(records.length * 2);
      grown.set(records);
      records = grown;
    }
    records[length++] = n;
    records[length++] = at;
  };
  const request = new TextEncoder().encode(
    `GET ${PATH} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`,
  );
  const connections: Deno.TcpConn[] = [];
  const reads = { count: 0 };
  const opened: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const conn = await Deno.connect({ hostname, port: Number(port) });
    connections.push(conn);
    await conn.write(request);
    let markOpen!: () => void;
    opened.push(new Promise((resolve) => markOpen = resolve));
    void readStream(conn, markOpen, record, reads);
  }
  await Promise.all(opened);
  const stdout = Deno.stdout;
  await stdout.write(new TextEncoder().encode("open\n"));
  // Wait for "stop" or the end of stdin.
  const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
  for await (const text of lines) if (text.includes("stop")) break;
  for (const conn of connections) {
    try {
      conn.close();
    } catch {
      // already closed
    }
  }
  if (out !== "") {
    await Deno.writeFile(
      out,
      new Uint8Array(records.buffer, 0, length * 8),
    );
  }
  await stdout.write(new TextEncoder().encode(`done ${reads.count}\n`));
  Deno.exit(0);
}

/** Reads one stream to its end, recording the `f<n>f` messages in it. */
async function readStream(
  conn: Deno.TcpConn,
  markOpen: () => void,
  record: (n: number, at: number) => void,
  reads: { count: number },
): Promise<void> {
  const buffer = Buffer.alloc(64 * 1024);
  // The bytes of an event cut by the end of a read, kept for the next one.
  let carry = 0;
  let open = false;
  try {
    for (;;) {
      const read = await conn.read(buffer.subarray(carry));
      if (read === null) break;
      reads.count++;
      const at = performance.timeOrigin + performance.now();
      const end = carry + read;
      const view = buffer.subarray(0, end);
      if (!open && view.indexOf(OPENED) >= 0) {
        open = true;
        markOpen();
      }
      let from = 0;
      let cut = -1;
      for (;;) {
        const found = view.indexOf(MARK, from);
        if (found < 0) break;
        let i = found + MARK.length;
        let n = 0;
        while (i < end && buffer[i] !== F) n = n * 10 + buffer[i++]! - ZERO;
        if (i >= end) {
          cut = found;
          break;
        }
        record(n, at);
        from = i;
      }
      // Keep the cut event, or the last few bytes (a mark cut in two).
      const keepFrom = cut >= 0 ? cut : Math.max(from, end - MARK.length);
      carry = end - keepFrom;
      buffer.copy(buffer, 0, keepFrom, end);
    }
  } catch {
    // closed
  } finally {
    markOpen();
  }
}
