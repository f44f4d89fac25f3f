/**
 * One request on one pooled connection: writing it, reading the answer's head, and
 * handing the body back whole (small answers) or as a stream.
 *
 * @module
 */
import { type ByteReader, EndOfStream } from "./_byte_reader.ts";
import {
  type Answer,
  answerBody,
  type BodyWatcher,
  type HeaderRewrite,
} from "./_answer_body.ts";
import {
  latin1,
  latin1Into,
  parseHead,
  refuseControlCharacters,
  type RequestBody,
  type RequestHead,
} from "./_wire.ts";
import { concat, writeAll, writeBody } from "./_write.ts";
import { type Exchanged, wholeAnswer } from "./exchange.ts";

const MAX_HEAD_BYTES = 64 * 1024;
const NO_BYTES = new Uint8Array(0);

/** An open connection and its reader (which keeps its buffer between answers). */
export interface Connection {
  conn: Deno.TcpConn;
  reader: ByteReader;
  /** Holds a request head while it is written (saves an allocation per call). */
  out: Uint8Array;
  /** Whether it waits in the pool. */
  idle: boolean;
}

/** One call on its connection, as `send` carries it out. */
export interface PendingCall {
  connection: Connection;
  head: RequestHead;
  body: RequestBody;
  method: string;
  signal: AbortSignal | undefined;
  rewrite: HeaderRewrite | undefined;
  onBody?: BodyWatcher;
  /** Set when the whole answer is wanted as an {@linkcode Exchanged}. */
  lean: { discard: boolean } | undefined;
}

/**
 * Sends one request on its connection and returns the answer: a `Response` whose body
 * is still streaming or, for a lean call, the whole {@linkcode Exchanged}.
 */
export async function send(
  pending: PendingCall,
  done: (reusable: boolean) => void,
): Promise<Response | Exchanged> {
  const { body, signal } = pending;
  const { conn, reader, out } = pending.connection;
  const abort = () => closeQuietly(conn);
  signal?.addEventListener("abort", abort, { once: true });
  const finish = (reusable: boolean) => {
    signal?.removeEventListener("abort", abort);
    done(reusable);
  };
  try {
    const text = pending.head.text;
    const inline = typeof body === "string"
      ? new TextEncoder().encode(body)
      : body instanceof Uint8Array
      ? body
      : undefined;
    if (inline) {
      // Head and body in the connection's buffer when they fit: one write, no
      // allocation.
      const length = latin1Into(text, out);
      if (length >= 0 && length + inline.length <= out.length) {
        out.set(inline, length);
        await writeAll(conn, out.subarray(0, length + inline.length));
      } else await writeAll(conn, concat(latin1(text), inline));
    } else {
      const length = latin1Into(text, out);
      await writeAll(conn, length < 0 ? latin1(text) : out.subarray(0, length));
    }
    let sent: Promise<boolean> = Promise.resolve(true);
    if (body instanceof ReadableStream) {
      sent = writeBody(conn, body, pending.head.chunked);
    }
    let answer: Answer;
    do {
      answer = parseHead(await reader.readHead(MAX_HEAD_BYTES));
    } while (answer.status >= 100 && answer.status < 200);
    const lean = pending.lean;
    const small = lean && await sent &&
      smallBody(answer, reader, pending.method, lean.discard);
    if (small) {
      finish(small.reusable);
      return {
        status: answer.status,
        statusText: answer.statusText,
        headers: answer.headers,
        body: small.body,
      };
    }
    if (!lean) refuseControlCharacters(answer.headers);
    const response = answerBody(
      answer,
      reader,
      pending.method,
      async (reusable) => {
        finish(reusable && await sent);
      },
      pending.rewrite,
      pending.onBody,
    );
    return lean ? await wholeAnswer(response, lean.discard) : response;
  } catch (error) {
    finish(false);
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}

/**
 * The body of an answer that came whole with its head (no body, or a known length
 * already buffered, not chunked, not encoded), copied out of the reader's buffer (or
 * skipped when `discard`), and whether the connection may be reused; `undefined` for
 * any other answer.
 */
function smallBody(
  answer: Answer,
  reader: ByteReader,
  method: string,
  discard: boolean,
): { body: Uint8Array; reusable: boolean } | undefined {
  let length: string | undefined;
  let keepAlive = !answer.http10;
  for (const [name, value] of answer.headers) {
    if (name === "content-length") {
      // A second, different length: the stream path refuses the answer.
      if (length !== undefined && length !== value) return undefined;
      length = value;
    } else if (name === "transfer-encoding" || name === "content-encoding") {
      return undefined;
    } else if (name === "connection" && /(^|,)\s*close\s*($|,)/i.test(value)) {
      keepAlive = false;
    }
  }
  const bodiless = method === "HEAD" || answer.status === 204 ||
    answer.status === 304;
  const size = bodiless ? 0 : length === undefined ? NaN : Number(length);
  if (!(size >= 0) || reader.buffered < size) return undefined;
  const taken = reader.take(size);
  const body = discard || size === 0 ? NO_BYTES : taken.slice();
  return { body, reusable: keepAlive && reader.buffered === 0 };
}

/** Whether `error` shows a connection closed before any answer came back. */
export function isStale(error: unknown): boolean {
  return (error instanceof EndOfStream && error.received === 0) ||
    error instanceof Deno.errors.BrokenPipe ||
    error instanceof Deno.errors.ConnectionReset ||
    error instanceof Deno.errors.ConnectionAborted;
}

export function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}
