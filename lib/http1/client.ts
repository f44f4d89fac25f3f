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
 * watched, so one the server closes (its keep-alive time-out) or writes to
 * leaves the pool at once. Bytes not asked for (after a response, or on an idle
 * connection) close every idle connection to that host and port: a server
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
 * `decoded`); it never follows redirects. Bodies stream both ways.
 *
 * Given an outbound proxy (`proxy`, which the settings layer reads from
 * `HTTP_PROXY`, `HTTPS_PROXY` and `NO_PROXY` by the rules of Deno's `fetch`:
 * `outbound_proxy.ts`), `http:` requests go to the proxy in absolute form, and
 * `https:` requests through its `CONNECT` tunnel, then TLS to the origin; the
 * proxy URL's credentials go as `Proxy-Authorization`, and a proxy that refuses
 * fails the request with a `ProxyRefusedError` naming it (credentials masked).
 * Without a proxy for it, an `https:` URL is not served (`serves()`):
 * `createUpstream` sends it to `fetch`.
 *
 * Layout: `lib/http1/` is the transport of the proxy and the forwarder; like all of
 * `lib/`, it imports `lib/` only, and its imports run one way (`tests/layout_test.ts`
 * checks both).
 *
 * @module
 */
import { connect, routeOf, targetOf } from "./_connect.ts";
import { type RequestBody, requestHead } from "./_wire.ts";
import {
  closeQuietly,
  type Connection,
  isStale,
  type PendingRequest,
  send,
} from "./_send.ts";
import { socketFailure } from "./_socket_failure.ts";
import { ProxyRefusedError, UnsupportedSchemeError } from "./errors.ts";
import type { OutboundProxy } from "./outbound_proxy.ts";
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
   * failed before any byte of the response came (the server closed it
   * meanwhile). Other methods are never sent twice: the server may have acted on
   * the first.
   * @default IDEMPOTENT_METHODS
   */
  retryMethods?: readonly string[];
  /**
   * The outbound proxy (parsed from the environment by the settings layer:
   * `outboundProxyOf`); without it, every request goes straight to its server.
   */
  proxy?: OutboundProxy;
  /**
   * CA certificates (PEM) trusted for `https:` origins reached through the proxy,
   * besides the system's (and `DENO_CERT`). @default none
   */
  caCerts?: string[];
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
   * Sends a request to an `http:` URL, or an `https:` URL that goes through the
   * proxy (see {@linkcode Upstream}); other URLs are refused with an
   * `UnsupportedSchemeError` (`createUpstream` sends them to `fetch`).
   */
  request: Upstream;
  /** Whether `request` takes `url` (see `request`). */
  serves(url: URL): boolean;
  /** Closes the idle connections; connections in use close when they finish. */
  close(): void;
}

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
 *
 * @example Through an outbound proxy (the settings layer parses it from the environment)
 * ```ts
 * import { parseNoProxy, parseProxyUrl } from "./outbound_proxy.ts";
 *
 * const proxy = parseProxyUrl("http://user:password@10.0.0.1:3128");
 * const client = createHttp1Client({
 *   proxy: { http: proxy, https: proxy, noProxy: parseNoProxy("127.0.0.1") },
 * });
 * client.serves(new URL("https://example.com/")); // true: through the tunnel
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
    // Bytes after the response: the server wrote more than it was asked.
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
    // A server closes idle connections after its keep-alive time-out: drop such a
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

  /** Sends one request on a pooled connection. */
  async function request(
    input: URL | string,
    init: UpstreamRequest = {},
  ): Promise<UpstreamResponse> {
    const url = typeof input === "string" ? new URL(input) : input;
    const route = routeOf(url, options.proxy);
    if (route === undefined) throw new UnsupportedSchemeError(url.protocol);
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const method = (init.method ?? "GET").toUpperCase();
    const body = inlineBody(init.body ?? null);
    const forward = route.proxy && !route.tunnel ? route.proxy : undefined;
    const head = requestHead(method, url, init.headers, body, forward);
    const key = init.partition ? `${route.key}\n${init.partition}` : route.key;
    const reuse = init.reuse ?? true;
    const open = () =>
      connect(url, route, { signal, caCerts: options.caCerts });
    const pooled = reuse ? take(key) : undefined;
    const connection = pooled ?? await open();
    const received = connection.reader.received;
    const pending: PendingRequest = {
      connection,
      head,
      body,
      method,
      signal,
      maxDecodedBytes,
    };
    let response: UpstreamResponse;
    try {
      response = await send(
        pending,
        (reusable) => release(route.key, key, connection, reuse && reusable),
      );
    } catch (error) {
      // A pooled connection the server closed meanwhile: retry once, fresh, when
      // not a byte of the response came, the method may be sent again, and so can
      // the body.
      const retry = pooled && !signal?.aborted && retryMethods.has(method) &&
        !(body instanceof ReadableStream) && isStale(error) &&
        connection.reader.received === received;
      if (!retry) throw socketFailure(error);
      const fresh = await open();
      try {
        response = await send(
          { ...pending, connection: fresh },
          (reusable) => release(route.key, key, fresh, reuse && reusable),
        );
      } catch (error) {
        throw socketFailure(error);
      }
    }
    // Only a proxy asks for Proxy-Authorization (RFC 9110 15.5.8): a 407 to a
    // forwarded request is the proxy refusing it.
    if (forward && response.status === 407) {
      if (response.body instanceof ReadableStream) {
        await response.body.cancel().catch(() => {});
      }
      throw new ProxyRefusedError(
        forward.shown,
        targetOf(url),
        response.status,
        response.statusText,
      );
    }
    return response;
  }

  return {
    request,
    serves: (url) => routeOf(url, options.proxy) !== undefined,
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
