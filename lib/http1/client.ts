/**
 * A small HTTP/1.1 client with a keep-alive connection pool: `request()` is the
 * `http:` adapter of the {@linkcode Upstream} interface (`upstream.ts`), which
 * `createUpstream` is handed (this module imports only the interface's types).
 *
 * The proxy's upstream requests and the forwarder's posts and queue requests are
 * their hot paths, and `fetch` or undici's `Pool` cost more per request on a local
 * network (`docs/benchmarks.md`). Responses are read strictly (RFC 9112 section 6,
 * and never more leniently than llhttp: see `_framing.ts` and the conformance
 * corpus in `conformance_test.ts`); a response that breaks HTTP/1.1 fails with an
 * `InvalidResponseError` (one subclass per failure, `errors.ts`). A connection
 * that carried an invalid response, a response cut short, an abort, or any byte
 * not asked for is closed for good, never pooled; an idle pooled connection is
 * watched, so one the upstream closes (its keep-alive time-out) or writes to
 * leaves the pool at once. Bytes not asked for (after a response, or on an idle
 * connection) close every idle connection to that host and port: an upstream
 * that sends a response astray may have done it on the others too. Connections
 * are shared only within a request's `partition` (the proxy's: the client's
 * credentials), and not at all for a request with `reuse: false`. A request with a bad method, header name or value is
 * refused with an `InvalidRequestError` before anything is written; a streamed body
 * that turns out longer or shorter than its declared `Content-Length` fails the
 * request with a `RequestLengthMismatchError` and closes the connection (its excess
 * is never written); a failed connect, read or write is a `SocketError`. Only the
 * methods of `retryMethods` are sent a second time, and only when a reused
 * connection failed before any byte of the response came.
 *
 * Like Deno's `fetch`, it decodes gzip, deflate and brotli bodies (raw deflate and
 * an empty coded body are read too, as browsers do; the response says so with
 * `decoded`); it never follows redirects. Bodies stream both ways. Unlike `fetch`,
 * it does not read HTTP_PROXY and friends: plain-http upstreams are reached
 * directly.
 *
 * Layout: `lib/http1/` is the transport of the proxy and the forwarder; like all of
 * `lib/`, it imports `lib/` only, and its imports run one way (`tests/layout_test.ts`
 * checks both).
 *
 * @module
 */
import { ByteReader } from "./_byte_reader.ts";
import { type RequestBody, requestHead } from "./_wire.ts";
import {
  closeQuietly,
  type Connection,
  isStale,
  type PendingRequest,
  send,
} from "./_send.ts";
import { socketFailure } from "./_socket_failure.ts";
import { SocketError, UnsupportedSchemeError } from "./errors.ts";
import type {
  Upstream,
  UpstreamRequest,
  UpstreamResponse,
} from "./upstream.ts";

/** Options of {@linkcode createHttp1Client}. */
export interface Http1ClientOptions {
  /** Idle connections kept per host and port. @default 128 */
  maxIdlePerHost?: number;
  /**
   * Methods sent a second time, once, on a fresh connection when a reused one
   * failed before any byte of the response came (the upstream closed it
   * meanwhile). Other methods are never sent twice: the upstream may have acted on
   * the first.
   * @default IDEMPOTENT_METHODS
   */
  retryMethods?: readonly string[];
  /**
   * Bound on the bytes a gzip, deflate or br body decodes to; past it the body fails
   * with a `DecodedTooLargeError` (a decompression bomb: 841 bytes of brotli decode
   * to 1 GiB). Whatever the bound, the decoder holds at most 64 KiB at once.
   * @default Infinity
   */
  maxDecodedBytes?: number;
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
   * Sends a request to an `http:` URL (see {@linkcode Upstream}); other schemes are
   * refused with an `UnsupportedSchemeError` (`createUpstream` sends them to
   * `fetch`).
   */
  request: Upstream;
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
 * const response = await client.request("http://127.0.0.1:8080/items");
 * if (response.body instanceof ReadableStream) await response.body.cancel();
 * client.close();
 * ```
 */
export function createHttp1Client(
  options: Http1ClientOptions = {},
): Http1Client {
  const maxIdle = options.maxIdlePerHost ?? 128;
  const retryMethods = new Set(options.retryMethods ?? IDEMPOTENT_METHODS);
  const maxDecodedBytes = options.maxDecodedBytes ?? Infinity;
  const idle = new Map<string, Connection[]>();
  let closed = false;

  /** Closes every idle connection to `host` (in every partition). */
  const purge = (host: string) => {
    for (const [key, pool] of idle) {
      if (key !== host && !key.startsWith(`${host}\n`)) continue;
      for (const connection of pool) {
        connection.idle = false;
        closeQuietly(connection.conn);
      }
      idle.delete(key);
    }
  };

  const release = (
    host: string,
    key: string,
    connection: Connection,
    reusable: boolean,
  ) => {
    // Bytes after the response: the upstream wrote more than it was asked.
    if (connection.reader.buffered > 0) purge(host);
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
    // An upstream closes idle connections after its keep-alive time-out: drop such a
    // connection at once, rather than find out when a request that cannot be sent
    // again (a streamed body) goes out on it. Bytes that come unasked (a 408) also
    // end it.
    connection.reader.watch().then((bytes) => {
      if (!connection.idle) return;
      connection.idle = false;
      const at = pool.indexOf(connection);
      if (at >= 0) pool.splice(at, 1);
      closeQuietly(connection.conn);
      if (bytes) purge(host);
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
      throw signal?.aborted ? signal.reason : new SocketError(error);
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
  async function request(
    input: URL | string,
    init: UpstreamRequest = {},
  ): Promise<UpstreamResponse> {
    const url = typeof input === "string" ? new URL(input) : input;
    if (url.protocol !== "http:") {
      throw new UnsupportedSchemeError(url.protocol);
    }
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const method = (init.method ?? "GET").toUpperCase();
    const body = inlineBody(init.body ?? null);
    const head = requestHead(method, url, init.headers, body);
    const host = url.host;
    const key = init.partition ? `${host}\n${init.partition}` : host;
    const reuse = init.reuse ?? true;
    const pooled = reuse ? take(key) : undefined;
    const connection = pooled ?? await open(url, signal);
    const received = connection.reader.received;
    const pending: PendingRequest = {
      connection,
      head,
      body,
      method,
      signal,
      maxDecodedBytes,
    };
    try {
      return await send(
        pending,
        (reusable) => release(host, key, connection, reuse && reusable),
      );
    } catch (error) {
      // A pooled connection the upstream closed meanwhile: retry once, fresh, when
      // not a byte of the response came, the method may be sent again, and so can
      // the body.
      const retry = pooled && !signal?.aborted && retryMethods.has(method) &&
        !(body instanceof ReadableStream) && isStale(error) &&
        connection.reader.received === received;
      if (!retry) throw socketFailure(error);
      const fresh = await open(url, signal);
      try {
        return await send(
          { ...pending, connection: fresh },
          (reusable) => release(host, key, fresh, reuse && reusable),
        );
      } catch (error) {
        throw socketFailure(error);
      }
    }
  }

  return {
    request,
    close() {
      closed = true;
      for (const pool of idle.values()) {
        for (const { conn } of pool) closeQuietly(conn);
      }
      idle.clear();
    },
  };
}

/** A string body as bytes, encoded once (for its length and for the wire). */
function inlineBody(body: RequestBody | string): RequestBody {
  return typeof body === "string" ? new TextEncoder().encode(body) : body;
}
