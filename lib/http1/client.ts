/**
 * A small HTTP/1.1 client with a keep-alive connection pool, shaped like `fetch`.
 *
 * The proxy's remote calls are its hot path, and `fetch` costs about twice as much per
 * call on a local network. This client speaks plain `http:` itself and hands any
 * other URL to the fallback `fetch`. Like Deno's `fetch`, it decodes gzip, deflate and
 * brotli bodies and keeps the answer's headers as they were; it never follows
 * redirects. Bodies stream both ways. Unlike `fetch`, it does not read HTTP_PROXY
 * and friends: plain-http remotes are called directly.
 *
 * @module
 */
import { ByteReader, EndOfStream } from "./_byte_reader.ts";
import { type Answer, answerBody, type HeaderRewrite } from "./_answer_body.ts";
import {
  latin1,
  latin1Into,
  parseHead,
  type RequestBody,
  type RequestHead,
  requestHead,
} from "./_wire.ts";
import { concat, writeAll, writeBody } from "./_write.ts";

/** Options of {@linkcode createHttp1Client}. */
export interface Http1ClientOptions {
  /** Used for every URL that is not `http:`. @default globalThis.fetch */
  fallback?: typeof fetch;
  /** Idle connections kept per host and port. @default 128 */
  maxIdlePerHost?: number;
}

/** `fetch`'s options, plus what only the pooled client honours (`fetch` ignores it). */
export interface Http1RequestInit extends RequestInit {
  /**
   * Rewrites the answer's header pairs (names in lower case) before its `Response`
   * is built: cheaper than changing the `Headers` afterwards. Not called for URLs
   * handed to the fallback.
   */
  answerHeaders?: HeaderRewrite;
}

/** A pooled HTTP/1.1 client. */
export interface Http1Client {
  /** Calls `input` like `fetch` (method, headers, body, signal are honoured). */
  fetch: typeof fetch;
  /** Closes the idle connections; connections in use close when they finish. */
  close(): void;
}

const MAX_HEAD_BYTES = 64 * 1024;
/** Bytes of a connection's reused buffer for request heads. */
const OUT_SIZE = 4096;

/**
 * Returns a pooled HTTP/1.1 client.
 *
 * @example
 * ```ts
 * const client = createHttp1Client();
 * const response = await client.fetch("http://127.0.0.1:8080/items");
 * client.close();
 * ```
 */
export function createHttp1Client(
  options: Http1ClientOptions = {},
): Http1Client {
  const fallback = options.fallback ?? globalThis.fetch;
  const maxIdle = options.maxIdlePerHost ?? 128;
  const idle = new Map<string, Connection[]>();
  let closed = false;

  const release = (key: string, connection: Connection, reusable: boolean) => {
    const pool = idle.get(key) ?? [];
    if (!reusable || closed || pool.length >= maxIdle) {
      return closeQuietly(connection.conn);
    }
    pool.push(connection);
    idle.set(key, pool);
  };

  const open = async (url: URL): Promise<Connection> => {
    const conn = await Deno.connect({
      hostname: url.hostname.replace(/^\[|\]$/g, ""),
      port: Number(url.port || 80),
    });
    conn.setNoDelay(true);
    return {
      conn,
      reader: new ByteReader(conn),
      out: new Uint8Array(OUT_SIZE),
    };
  };

  async function call(input: RequestInfo | URL, init: Http1RequestInit = {}) {
    const url = input instanceof URL
      ? input
      : new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== "http:" || input instanceof Request) {
      return await fallback(input, init);
    }
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const method = (init.method ?? "GET").toUpperCase();
    const body = init.body ?? null;
    if (
      body !== null && typeof body !== "string" &&
      !(body instanceof Uint8Array) && !(body instanceof ReadableStream)
    ) {
      return await fallback(input, init);
    }
    const head = requestHead(method, url, init.headers, body);
    const key = url.host;
    const pooled = idle.get(key)?.pop();
    const connection = pooled ?? await open(url);
    const rewrite = init.answerHeaders;
    const exchange = { connection, head, body, method, signal, rewrite };
    try {
      return await send(
        exchange,
        (reusable) => release(key, connection, reusable),
      );
    } catch (error) {
      // A pooled connection the remote closed meanwhile: retry once, fresh, when
      // nothing was answered and the body can be sent again.
      const retry = pooled && !signal?.aborted &&
        !(body instanceof ReadableStream) && isStale(error);
      if (!retry) throw error;
      const fresh = await open(url);
      return await send(
        { ...exchange, connection: fresh },
        (reusable) => release(key, fresh, reusable),
      );
    }
  }

  return {
    fetch: call as typeof fetch,
    close() {
      closed = true;
      for (const pool of idle.values()) {
        for (const { conn } of pool) closeQuietly(conn);
      }
      idle.clear();
    },
  };
}

/** An open connection and its reader (which keeps its buffer between answers). */
interface Connection {
  conn: Deno.TcpConn;
  reader: ByteReader;
  /** Holds a request head while it is written (saves an allocation per call). */
  out: Uint8Array;
}

interface Exchange {
  connection: Connection;
  head: RequestHead;
  body: RequestBody;
  method: string;
  signal: AbortSignal | undefined;
  rewrite: HeaderRewrite | undefined;
}

/** Sends one request on `conn` and returns its answer, body still streaming. */
async function send(
  exchange: Exchange,
  done: (reusable: boolean) => void,
): Promise<Response> {
  const { body, signal } = exchange;
  const { conn, reader, out } = exchange.connection;
  const abort = () => closeQuietly(conn);
  signal?.addEventListener("abort", abort, { once: true });
  const finish = (reusable: boolean) => {
    signal?.removeEventListener("abort", abort);
    done(reusable);
  };
  try {
    const text = exchange.head.text;
    const inline = typeof body === "string"
      ? new TextEncoder().encode(body)
      : body instanceof Uint8Array
      ? body
      : undefined;
    if (inline) await writeAll(conn, concat(latin1(text), inline));
    else {
      const length = latin1Into(text, out);
      await writeAll(conn, length < 0 ? latin1(text) : out.subarray(0, length));
    }
    let sent: Promise<boolean> = Promise.resolve(true);
    if (body instanceof ReadableStream) {
      sent = writeBody(conn, body, exchange.head.chunked);
    }
    let answer: Answer;
    do {
      answer = parseHead(await reader.readHead(MAX_HEAD_BYTES));
    } while (answer.status >= 100 && answer.status < 200);
    return answerBody(answer, reader, exchange.method, async (reusable) => {
      finish(reusable && await sent);
    }, exchange.rewrite);
  } catch (error) {
    finish(false);
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}

/** Whether `error` shows a connection closed before any answer came back. */
function isStale(error: unknown): boolean {
  return (error instanceof EndOfStream && error.received === 0) ||
    error instanceof Deno.errors.BrokenPipe ||
    error instanceof Deno.errors.ConnectionReset ||
    error instanceof Deno.errors.ConnectionAborted;
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}
