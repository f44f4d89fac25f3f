/**
 * A small HTTP/1.1 client with a keep-alive connection pool, shaped like `fetch`, with
 * a leaner `exchange()` for callers that want a whole answer at once.
 *
 * The proxy's remote calls and the forwarder's posts and queue calls are their hot
 * paths, and `fetch` costs about twice as much per call on a local network. This
 * client speaks plain `http:` itself and hands any other URL to the fallback `fetch`.
 * Like Deno's `fetch`, it decodes gzip, deflate and brotli bodies and keeps the
 * answer's headers as they were; it never follows redirects. Bodies stream both ways. Unlike `fetch`, it does not read HTTP_PROXY
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

/** What {@linkcode Exchange} sends. */
export interface ExchangeInit {
  /** @default "GET" */
  method?: string;
  /** Header pairs (cheapest), or anything `Headers` accepts. */
  headers?: HeadersInit;
  body?: string | Uint8Array<ArrayBuffer> | null;
  signal?: AbortSignal | null;
  /** Drop the answer's body instead of reading it (`body` is then empty). */
  discardBody?: boolean;
}

/** A whole answer: status, header pairs (names in lower case) and body bytes. */
export interface Exchanged {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Uint8Array;
}

/**
 * One request whose whole answer is wanted at once: no `Response`, `Headers` or
 * stream objects on the way, for callers that only read a status or a small body.
 */
export type Exchange = (
  url: string | URL,
  init?: ExchangeInit,
) => Promise<Exchanged>;

/** A pooled HTTP/1.1 client. */
export interface Http1Client {
  /** Calls `input` like `fetch` (method, headers, body, signal are honoured). */
  fetch: typeof fetch;
  /** Calls `url` and reads the whole answer (see {@linkcode Exchange}). */
  exchange: Exchange;
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
    if (
      !reusable || closed || pool.length >= maxIdle ||
      connection.reader.buffered > 0
    ) {
      return closeQuietly(connection.conn);
    }
    pool.push(connection);
    idle.set(key, pool);
    connection.idle = true;
    // A remote closes idle connections after its keep-alive time-out: drop such a
    // connection at once, rather than find out when a request that cannot be sent
    // again (a streamed body) goes out on it. Bytes that come unasked (a 408) also
    // end it.
    connection.reader.watch().then(() => {
      if (!connection.idle) return;
      connection.idle = false;
      const at = pool.indexOf(connection);
      if (at >= 0) pool.splice(at, 1);
      closeQuietly(connection.conn);
    });
  };

  const take = (key: string): Connection | undefined => {
    const connection = idle.get(key)?.pop();
    if (connection) connection.idle = false;
    return connection;
  };

  /** Connects to `url`'s host; `signal` also ends a connect that hangs. */
  const open = async (
    url: URL,
    signal: AbortSignal | undefined,
  ): Promise<Connection> => {
    const conn = await Deno.connect({
      hostname: url.hostname.replace(/^\[|\]$/g, ""),
      port: Number(url.port || 80),
      signal,
    }).catch((error) => {
      throw signal?.aborted ? signal.reason : error;
    });
    conn.setNoDelay(true);
    return {
      conn,
      reader: new ByteReader(conn),
      out: new Uint8Array(OUT_SIZE),
      idle: false,
    };
  };

  /** Sends one request on a pooled connection; `lean` answers an {@linkcode Exchanged}. */
  async function request<Lean extends boolean>(
    url: URL,
    init: Omit<Http1RequestInit, "body"> & Omit<ExchangeInit, "body">,
    body: RequestBody,
    lean: Lean,
  ): Promise<Lean extends true ? Exchanged : Response> {
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const method = (init.method ?? "GET").toUpperCase();
    const head = requestHead(method, url, init.headers, body);
    const key = url.host;
    const pooled = take(key);
    const connection = pooled ?? await open(url, signal);
    const pending: PendingCall = {
      connection,
      head,
      body,
      method,
      signal,
      rewrite: init.answerHeaders,
      lean: lean ? { discard: init.discardBody ?? false } : undefined,
    };
    try {
      return await send(
        pending,
        (reusable) => release(key, connection, reusable),
      ) as Lean extends true ? Exchanged : Response;
    } catch (error) {
      // A pooled connection the remote closed meanwhile: retry once, fresh, when
      // nothing was answered and the body can be sent again.
      const retry = pooled && !signal?.aborted &&
        !(body instanceof ReadableStream) && isStale(error);
      if (!retry) throw error;
      const fresh = await open(url, signal);
      return await send(
        { ...pending, connection: fresh },
        (reusable) => release(key, fresh, reusable),
      ) as Lean extends true ? Exchanged : Response;
    }
  }

  async function call(input: RequestInfo | URL, init: Http1RequestInit = {}) {
    const url = input instanceof URL
      ? input
      : new URL(input instanceof Request ? input.url : String(input));
    if (url.protocol !== "http:" || input instanceof Request) {
      return await fallback(input, init);
    }
    const body = init.body ?? null;
    if (
      body !== null && typeof body !== "string" &&
      !(body instanceof Uint8Array) && !(body instanceof ReadableStream)
    ) {
      return await fallback(input, init);
    }
    return await request(url, init, inlineBody(body), false);
  }

  async function exchange(
    input: string | URL,
    init: ExchangeInit = {},
  ): Promise<Exchanged> {
    const url = input instanceof URL ? input : new URL(input);
    if (url.protocol !== "http:") {
      return await wholeAnswer(
        await fallback(url, { ...init, redirect: "manual" }),
        init.discardBody,
      );
    }
    return await request(url, init, inlineBody(init.body ?? null), true);
  }

  return {
    fetch: call as typeof fetch,
    exchange,
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
  /** Whether it waits in the pool. */
  idle: boolean;
}

/** One call on its connection, as `send` carries it out. */
interface PendingCall {
  connection: Connection;
  head: RequestHead;
  body: RequestBody;
  method: string;
  signal: AbortSignal | undefined;
  rewrite: HeaderRewrite | undefined;
  /** Set when the whole answer is wanted as an {@linkcode Exchanged}. */
  lean: { discard: boolean } | undefined;
}

/** A string body as bytes, encoded once (for its length and for the wire). */
function inlineBody(body: RequestBody | string): RequestBody {
  return typeof body === "string" ? new TextEncoder().encode(body) : body;
}

const NO_BYTES = new Uint8Array(0);

/** Reads a `Response` whole into an {@linkcode Exchanged}. */
export async function wholeAnswer(
  response: Response,
  discard = false,
): Promise<Exchanged> {
  let body = NO_BYTES;
  if (discard) await response.body?.cancel();
  else body = new Uint8Array(await response.arrayBuffer());
  return {
    status: response.status,
    statusText: response.statusText,
    headers: [...response.headers],
    body,
  };
}

/**
 * An {@linkcode Exchange} over any `fetch`: what the pooled client's `exchange` does
 * for callers given `fetch` instead (tests, or a fetch with a proxy). Like the pooled
 * client, it does not follow redirects: a 3xx is the answer.
 */
export function fetchExchange(
  doFetch: typeof fetch = globalThis.fetch,
): Exchange {
  return async (url, init = {}) =>
    await wholeAnswer(
      await doFetch(url, { ...init, redirect: "manual" }),
      init.discardBody,
    );
}

/**
 * Sends one request on its connection and returns the answer: a `Response` whose body
 * is still streaming or, for a lean call, the whole {@linkcode Exchanged}.
 */
async function send(
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
    const response = answerBody(
      answer,
      reader,
      pending.method,
      async (reusable) => {
        finish(reusable && await sent);
      },
      pending.rewrite,
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
    if (name === "content-length") length = value;
    else if (name === "transfer-encoding" || name === "content-encoding") {
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
