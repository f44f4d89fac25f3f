/**
 * One request on one pooled connection: writing it, reading the response's head,
 * and handing the body back whole (small responses) or as a stream.
 *
 * @module
 */
import { concatBytes } from "../concat_bytes.ts";
import type { ByteReader } from "./_byte_reader.ts";
import { responseBody } from "./_response_body.ts";
import {
  latin1,
  latin1Into,
  parseHead,
  type RequestBody,
  type RequestHead,
  type ResponseHead,
} from "./_wire.ts";
import { type Framing, framingOf } from "./_framing.ts";
import { ConnectionClosedError, InvalidStatusError } from "./errors.ts";
import { writeAll, writeBody } from "./_write.ts";
import type { UpstreamResponse } from "./upstream.ts";

const MAX_HEAD_BYTES = 64 * 1024;

/** An open connection and its reader (which keeps its buffer between responses). */
export interface Connection {
  conn: Deno.Conn;
  reader: ByteReader;
  /** Holds a request head while it is written (saves an allocation per request). */
  out: Uint8Array;
  /** Whether it waits in the pool. */
  idle: boolean;
}

/** One request on its connection, as `send` carries it out. */
export interface PendingRequest {
  connection: Connection;
  head: RequestHead;
  body: RequestBody;
  method: string;
  signal: AbortSignal | undefined;
  /** Bound on the decoded bytes of a coded body. */
  maxDecodedBytes: number;
}

/**
 * Sends one request on its connection and returns the response, its body whole or
 * still streaming. `done(reusable)` is called once the connection is free again.
 */
export async function send(
  pending: PendingRequest,
  done: (reusable: boolean) => void,
): Promise<UpstreamResponse> {
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
      } else await writeAll(conn, concatBytes([latin1(text), inline]));
    } else {
      const length = latin1Into(text, out);
      await writeAll(conn, length < 0 ? latin1(text) : out.subarray(0, length));
    }
    let sent: Promise<boolean> = Promise.resolve(true);
    if (body instanceof ReadableStream) {
      sent = writeBody(conn, body, pending.head.chunked, pending.head.length);
      // A body that breaks its Content-Length closes the connection, which fails
      // the response's head: that request gets the body's error.
      sent.catch((error) => refused = error);
    }
    let head: ResponseHead;
    let framing: Framing;
    while (true) {
      head = parseHead(await reader.readHead(MAX_HEAD_BYTES));
      framing = framingOf(head, pending.method);
      if (head.status >= 200) break;
      // Interim responses (RFC 9110 15.2) are read and dropped; nothing was asked
      // to switch protocols.
      if (head.status === 101) {
        throw new InvalidStatusError(
          "Invalid response from the server: 101 Switching Protocols, unasked",
        );
      }
    }
    const { body: received, decoded } = responseBody(
      head,
      framing,
      reader,
      (reusable) => {
        // The connection is free once the upload has ended too.
        if (!(body instanceof ReadableStream)) return finish(reusable);
        sent.then((whole) => finish(reusable && whole), () => finish(false));
      },
      pending.maxDecodedBytes,
    );
    return {
      status: head.status,
      statusText: head.statusText,
      headers: head.headers,
      body: received,
      decoded,
    };
  } catch (error) {
    finish(false);
    if (signal?.aborted) throw signal.reason;
    throw refused ?? error;
  }
}

/** Whether `error` shows a connection closed before any response came back. */
export function isStale(error: unknown): boolean {
  return (error instanceof ConnectionClosedError && error.received === 0) ||
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
