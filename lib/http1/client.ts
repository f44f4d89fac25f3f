/**
 * A small HTTP/1.1 client with a keep-alive connection pool: `call()` is the
 * `http:` adapter of the {@linkcode RemoteCall} interface (`remote_call.ts`), with
 * `fetch()` and `exchange()` as conveniences over it.
 *
 * The proxy's remote calls and the forwarder's posts and queue calls are their hot
 * paths, and this client makes more calls per second than `fetch` or undici's `Pool`
 * on a local network (figures: `docs/benchmarks.md`, `deno task bench proxy`). Answers are read strictly
 * (RFC 9112 section 6, and never more leniently than llhttp: see `_framing.ts` and
 * the conformance corpus in `conformance_test.ts`); an answer that breaks HTTP/1.1
 * fails with an `InvalidResponseError`. A connection that carried an invalid answer,
 * an answer cut short, an abort, or any byte not asked for is closed for good,
 * never pooled; an idle pooled connection is watched, so one the remote closes (its
 * keep-alive time-out) or writes to leaves the pool at once. A request with a bad
 * method, header name or value is refused with a `TypeError` before anything is
 * written; a streamed body that turns out longer or shorter than its declared
 * `Content-Length` fails the call with a `TypeError` and closes the connection (its
 * excess is never written). Only the methods of `retryMethods` are sent a second time, and only when
 * a reused connection failed before any byte of the answer came.
 *
 * Like Deno's `fetch`, it decodes gzip, deflate and brotli bodies (raw deflate and
 * an empty coded body are read too, as browsers do; `call()` says so with
 * `decoded`); it never follows redirects. Bodies stream both ways. Unlike `fetch`,
 * it does not read HTTP_PROXY and friends: plain-http remotes are called directly.
 *
 * Layout: `lib/http1/` is the transport of the proxy and the forwarder; like all of
 * `lib/`, it imports `lib/` only (`tests/layout_test.ts` checks it).
 *
 * @module
 */
import { ByteReader } from "./_byte_reader.ts";
export { InvalidResponseError } from "./invalid_response_error.ts";
import { type RequestBody, requestHead } from "./_wire.ts";
import {
  closeQuietly,
  type Connection,
  isStale,
  type PendingCall,
  send,
} from "./_send.ts";
import {
  type Exchange,
  type Exchanged,
  type ExchangeInit,
  fetchExchange,
  wholeAnswer,
} from "./exchange.ts";
import type {
  RemoteAnswer,
  RemoteBody,
  RemoteCall,
  RemoteRequest,
} from "./remote_call.ts";

/** Options of {@linkcode createHttp1Client}. */
export interface Http1ClientOptions {
  /** Used for every URL that is not `http:`. @default globalThis.fetch */
  fallback?: typeof fetch;
  /** Idle connections kept per host and port. @default 128 */
  maxIdlePerHost?: number;
  /**
   * Methods sent a second time, once, on a fresh connection when a reused one
   * failed before any byte of the answer came (the remote closed it meanwhile).
   * Other methods are never sent twice: the remote may have acted on the first.
   * @default IDEMPOTENT_METHODS
   */
  retryMethods?: readonly string[];
}

/**
 * Methods whose request may be sent again (RFC 9110 9.2.2): GET, HEAD, PUT, DELETE,
 * OPTIONS and TRACE, not POST or PATCH.
 */
export const IDEMPOTENT_METHODS: readonly string[] = [
  "GET",
  "HEAD",
  "PUT",
  "DELETE",
  "OPTIONS",
  "TRACE",
];

/** A pooled HTTP/1.1 client. */
export interface Http1Client {
  /**
   * Calls an `http:` URL (see {@linkcode RemoteCall}); other schemes are refused
   * with a `TypeError` (`createRemoteCall` sends them to `fetch`).
   */
  call: RemoteCall;
  /**
   * Calls `input` like `fetch` (method, headers, body, signal are honoured; the
   * answer keeps its `Content-Encoding` header, as `fetch`'s does); a convenience
   * over `call`, other schemes go to the fallback.
   */
  fetch: typeof fetch;
  /** Calls `url` and reads the whole answer (see {@linkcode Exchange}). */
  exchange: Exchange;
  /** Closes the idle connections; connections in use close when they finish. */
  close(): void;
}

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
  const fallbackExchange = fetchExchange(fallback);
  const maxIdle = options.maxIdlePerHost ?? 128;
  const retryMethods = new Set(options.retryMethods ?? IDEMPOTENT_METHODS);
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

  /** Sends one request on a pooled connection. */
  async function call(
    input: URL | string,
    init: RemoteRequest = {},
  ): Promise<RemoteAnswer> {
    const url = typeof input === "string" ? new URL(input) : input;
    if (url.protocol !== "http:") {
      throw new TypeError(
        `Unsupported URL "${url.protocol}" for the pooled client: only http: (use createRemoteCall)`,
      );
    }
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const method = (init.method ?? "GET").toUpperCase();
    const body = inlineBody(init.body ?? null);
    const head = requestHead(method, url, init.headers, body);
    const key = url.host;
    const pooled = take(key);
    const connection = pooled ?? await open(url, signal);
    const received = connection.reader.received;
    const pending: PendingCall = { connection, head, body, method, signal };
    try {
      return await send(
        pending,
        (reusable) => release(key, connection, reusable),
      );
    } catch (error) {
      // A pooled connection the remote closed meanwhile: retry once, fresh, when
      // not a byte of the answer came, the method may be sent again, and so can
      // the body.
      const retry = pooled && !signal?.aborted && retryMethods.has(method) &&
        !(body instanceof ReadableStream) && isStale(error) &&
        connection.reader.received === received;
      if (!retry) throw error;
      const fresh = await open(url, signal);
      return await send(
        { ...pending, connection: fresh },
        (reusable) => release(key, fresh, reusable),
      );
    }
  }

  async function fetchLike(
    input: RequestInfo | URL,
    init: RequestInit = {},
  ): Promise<Response> {
    const url = input instanceof URL
      ? input
      : new URL(input instanceof Request ? input.url : String(input));
    const body = init.body ?? null;
    if (
      url.protocol !== "http:" || input instanceof Request ||
      (body !== null && typeof body !== "string" &&
        !(body instanceof Uint8Array) && !(body instanceof ReadableStream))
    ) {
      return await fallback(input, init);
    }
    const answer = await call(url, {
      method: init.method,
      headers: headerPairs(init.headers),
      body: body as RemoteBody,
      signal: init.signal,
    });
    return new Response(answer.body, {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
    });
  }

  async function exchange(
    input: string | URL,
    init: ExchangeInit = {},
  ): Promise<Exchanged> {
    const url = input instanceof URL ? input : new URL(input);
    if (url.protocol !== "http:") return await fallbackExchange(url, init);
    const answer = await call(url, {
      ...init,
      headers: headerPairs(init.headers),
    });
    return await wholeAnswer(answer, init.discardBody);
  }

  return {
    call,
    fetch: fetchLike as typeof fetch,
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

/** Headers as a list of pairs, without a `Headers` object when they are one. */
function headerPairs(
  headers: HeadersInit | readonly (readonly [string, string])[] | undefined,
): [string, string][] | undefined {
  if (headers === undefined) return undefined;
  if (Array.isArray(headers)) return headers as [string, string][];
  return [...new Headers(headers as HeadersInit)];
}

/** A string body as bytes, encoded once (for its length and for the wire). */
function inlineBody(body: RequestBody | string): RequestBody {
  return typeof body === "string" ? new TextEncoder().encode(body) : body;
}
