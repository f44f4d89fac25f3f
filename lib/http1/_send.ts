/**
 * One request on one pooled connection: writing it, reading the answer's head, and
 * handing the body back whole (small answers) or as a stream.
 *
 * @module
 */
import { type ByteReader, EndOfStream } from "./_byte_reader.ts";
import { type Answer, answerBody } from "./_answer_body.ts";
import {
  latin1,
  latin1Into,
  parseHead,
  type RequestBody,
  type RequestHead,
} from "./_wire.ts";
import { type Framing, framingOf } from "./_framing.ts";
import { InvalidResponseError } from "./invalid_response_error.ts";
import { concat, writeAll, writeBody } from "./_write.ts";
import type { RemoteAnswer } from "./remote_call.ts";

const MAX_HEAD_BYTES = 64 * 1024;

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
}

/**
 * Sends one request on its connection and returns the answer, its body whole or
 * still streaming. `done(reusable)` is called once the connection is free again.
 */
export async function send(
  pending: PendingCall,
  done: (reusable: boolean) => void,
): Promise<RemoteAnswer> {
  const { body, signal } = pending;
  const { conn, reader, out } = pending.connection;
  const abort = () => closeQuietly(conn);
  signal?.addEventListener("abort", abort, { once: true });
  const finish = (reusable: boolean) => {
    signal?.removeEventListener("abort", abort);
    done(reusable);
  };
  let refused: unknown;
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
      sent = writeBody(conn, body, pending.head.chunked, pending.head.length);
      // A body that breaks its Content-Length closes the connection, which fails
      // the answer's head: that call gets the body's error.
      sent.catch((error) => refused = error);
    }
    let answer: Answer;
    let framing: Framing;
    while (true) {
      answer = parseHead(await reader.readHead(MAX_HEAD_BYTES));
      framing = framingOf(answer, pending.method);
      if (answer.status >= 200) break;
      // Interim answers (RFC 9110 15.2) are read and dropped; nothing was asked to
      // switch protocols.
      if (answer.status === 101) {
        throw new InvalidResponseError(
          "Invalid answer from the remote: 101 Switching Protocols, unasked",
        );
      }
    }
    const { body: answered, decoded } = answerBody(
      answer,
      framing,
      reader,
      (reusable) => {
        // The connection is free once the upload has ended too.
        if (!(body instanceof ReadableStream)) return finish(reusable);
        sent.then((whole) => finish(reusable && whole), () => finish(false));
      },
    );
    return {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
      body: answered,
      decoded,
    };
  } catch (error) {
    finish(false);
    if (signal?.aborted) throw signal.reason;
    throw refused ?? error;
  }
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
