/**
 * The one interface through which the proxy and the forwarder send their
 * requests: a request in; status, raw header list and body out, with abort. Two
 * adapters: the pooled HTTP/1.1 client for `http:` URLs and `https:` URLs through
 * the outbound proxy (`client.ts`, handed in: this module does not import it) and
 * `fetch` for the others (`https:`); one scheme dispatcher,
 * {@linkcode createUpstream}.
 *
 * @module
 */

/** A request body sent to the server: whole, or streamed. */
export type UpstreamBody =
  | string
  | Uint8Array<ArrayBuffer>
  | ReadableStream<Uint8Array>
  | null;

/** What an {@linkcode Upstream} sends. */
export interface UpstreamRequest {
  /** @default "GET" */
  method?: string;
  /** Header pairs as sent (`Host` and framing headers are the transport's). */
  headers?: readonly (readonly [string, string])[];
  body?: UpstreamBody;
  /**
   * Ends the request: before the response, it rejects with the signal's reason;
   * during the body, the body fails. A deadline is a signal too (`AbortSignal.timeout`).
   */
  signal?: AbortSignal | null;
  /**
   * The pooled client shares a connection only between requests of the same
   * partition (the proxy passes a digest of the client's credentials), so a
   * response a server sends astray reaches no client of another. `fetch`
   * ignores it. @default ""
   */
  partition?: string;
  /**
   * `false`: the pooled client sends the request on a new connection and closes it
   * after the response (for a server that cannot be trusted to frame its
   * responses). `fetch` ignores it. @default true
   */
  reuse?: boolean;
}

/** What an {@linkcode Upstream} responds. */
export interface UpstreamResponse {
  status: number;
  statusText: string;
  /** Header pairs as received, names in lower case, in order, repeats kept. */
  headers: [string, string][];
  /**
   * The body: bytes when it came whole with the head, a stream otherwise, `null`
   * when there is none. A stream must be read to its end or cancelled.
   */
  body: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null;
  /**
   * Whether the body was decoded from its `Content-Encoding` on the way (so that
   * header and `Content-Length` no longer describe it).
   */
  decoded: boolean;
}

/**
 * Sends a request to the server of `url`. The pooled client rejects with the classes of
 * `errors.ts` (an `InvalidResponseError` when the response breaks HTTP/1.1, a
 * `SocketError` or `ConnectionClosedError` when the connection fails, an
 * `InvalidRequestError` for a request that cannot be sent); `fetch` with its
 * `TypeError`; both with the signal's reason when it aborts.
 */
export type Upstream = (
  url: URL | string,
  request?: UpstreamRequest,
) => Promise<UpstreamResponse>;

/** Codings Deno's `fetch` asks for and decodes itself (it keeps the header). */
const DECODED_BY_FETCH = new Set(["gzip", "br"]);

/**
 * An {@linkcode Upstream} over `fetch` (redirects are not followed). Deno's `fetch`
 * decodes gzip and br itself; other codings come as sent.
 *
 * @example
 * ```ts
 * const upstream = fetchUpstream();
 * const response = await upstream("https://example.com/", { method: "GET" });
 * ```
 */
export function fetchUpstream(
  doFetch: typeof fetch = globalThis.fetch,
): Upstream {
  return async (url, request = {}) => {
    const response = await doFetch(url, {
      method: request.method ?? "GET",
      headers: request.headers as [string, string][] | undefined,
      body: request.body ?? null,
      signal: request.signal ?? null,
      redirect: "manual",
    });
    const headers: [string, string][] = [];
    for (const pair of response.headers) {
      if (pair[0] !== "set-cookie") headers.push(pair);
    }
    for (const cookie of response.headers.getSetCookie()) {
      headers.push(["set-cookie", cookie]);
    }
    const coding = response.headers.get("content-encoding")?.trim()
      .toLowerCase();
    return {
      status: response.status,
      statusText: response.statusText,
      headers,
      body: response.body,
      decoded: coding !== undefined && DECODED_BY_FETCH.has(coding) &&
        response.body !== null,
    };
  };
}

/** Options of {@linkcode createUpstream}. */
export interface UpstreamOptions {
  /**
   * The pooled client for `http:` URLs, and for the `https:` URLs its `serves`
   * takes (those through the outbound proxy) (`createHttp1Client()`, or anything
   * with its `request`); without it, every URL goes to `fetch`.
   */
  http1?: { request: Upstream; serves?(url: URL): boolean };
  /** The `fetch` for the other URLs. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/**
 * The {@linkcode Upstream} of a role, the one scheme dispatcher: `http:` URLs
 * through the pooled client, and the `https:` URLs it serves (through the outbound
 * proxy's tunnel), others through `fetch`.
 *
 * @example
 * ```ts
 * import { createHttp1Client } from "./client.ts";
 *
 * const http1 = createHttp1Client();
 * const upstream = createUpstream({ http1 });
 * const { status } = await upstream("http://127.0.0.1:8080/items");
 * ```
 */
export function createUpstream(options: UpstreamOptions = {}): Upstream {
  const viaFetch = fetchUpstream(options.fetch);
  const http1 = options.http1;
  if (!http1) return viaFetch;
  return (url, request) => {
    const href = typeof url === "string" ? url : url.href;
    if (href.startsWith("http:")) return http1.request(url, request);
    if (http1.serves && href.startsWith("https:")) {
      const parsed = typeof url === "string" ? new URL(url) : url;
      if (http1.serves(parsed)) return http1.request(parsed, request);
    }
    return viaFetch(url, request);
  };
}
