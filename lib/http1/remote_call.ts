/**
 * The one interface through which the proxy and the forwarder call remotes: a
 * request in; status, raw header list and body out, with abort. Two adapters: the
 * pooled HTTP/1.1 client for `http:` URLs (see `client.ts`) and `fetch` for the
 * others (`https:`).
 *
 * @module
 */
import type { Http1Client } from "./client.ts";

/** A request body a remote call sends: whole, or streamed. */
export type RemoteBody =
  | string
  | Uint8Array<ArrayBuffer>
  | ReadableStream<Uint8Array>
  | null;

/** What a {@linkcode RemoteCall} sends. */
export interface RemoteRequest {
  /** @default "GET" */
  method?: string;
  /** Header pairs as sent (`Host` and framing headers are the transport's). */
  headers?: readonly (readonly [string, string])[];
  body?: RemoteBody;
  /**
   * Ends the call: before the answer, the call rejects with its reason; during the
   * body, the body fails. A deadline is a signal too (`AbortSignal.timeout`).
   */
  signal?: AbortSignal | null;
}

/** What a {@linkcode RemoteCall} answers. */
export interface RemoteAnswer {
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
 * Calls a remote. Rejects with an `InvalidResponseError` (from the pooled client)
 * when the answer breaks HTTP/1.1, a `TypeError` for a request that cannot be sent
 * (a bad header name or value, a bad method), the signal's reason when it aborts,
 * and the network's error otherwise.
 */
export type RemoteCall = (
  url: URL | string,
  request?: RemoteRequest,
) => Promise<RemoteAnswer>;

/** Codings Deno's `fetch` asks for and decodes itself (it keeps the header). */
const DECODED_BY_FETCH = new Set(["gzip", "br"]);

/**
 * A {@linkcode RemoteCall} over `fetch` (redirects are not followed). Deno's `fetch`
 * decodes gzip and br itself; other codings come as sent.
 *
 * @example
 * ```ts
 * const call = fetchRemoteCall();
 * const answer = await call("https://example.com/", { method: "GET" });
 * ```
 */
export function fetchRemoteCall(
  doFetch: typeof fetch = globalThis.fetch,
): RemoteCall {
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

/** Options of {@linkcode createRemoteCall}. */
export interface RemoteCallOptions {
  /** The pooled client for `http:` URLs; without it, every URL goes to `fetch`. */
  http1?: Http1Client;
  /** The `fetch` for the other URLs. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/**
 * The {@linkcode RemoteCall} of a role: `http:` URLs through the pooled client,
 * others through `fetch`.
 *
 * @example
 * ```ts
 * const http1 = createHttp1Client();
 * const call = createRemoteCall({ http1 });
 * const { status } = await call("http://127.0.0.1:8080/items");
 * ```
 */
export function createRemoteCall(options: RemoteCallOptions = {}): RemoteCall {
  const viaFetch = fetchRemoteCall(options.fetch);
  const http1 = options.http1;
  if (!http1) return viaFetch;
  return (url, request) => {
    const href = typeof url === "string" ? url : url.href;
    return href.startsWith("http:")
      ? http1.call(url, request)
      : viaFetch(url, request);
  };
}
