/**
 * Whole-response requests: the {@linkcode Exchange} shape, over any
 * {@linkcode Upstream} (what the forwarder's posts and queue requests use).
 *
 * @module
 */

import { BodyTooLargeError, boundedBytes } from "../bounded_body.ts";
import {
  fetchUpstream,
  type Upstream,
  type UpstreamResponse,
} from "./upstream.ts";

/** What {@linkcode Exchange} sends. */
export interface ExchangeInit {
  /** @default "GET" */
  method?: string;
  /** Header pairs (cheapest), or anything `Headers` accepts. */
  headers?: HeadersInit;
  body?: string | Uint8Array<ArrayBuffer> | null;
  signal?: AbortSignal | null;
  /** Drop the response's body instead of reading it (`body` is then empty). */
  discardBody?: boolean;
  /**
   * Bound on the response body's bytes (decoded): past it the request fails with
   * a `BodyTooLargeError` (`lib/bounded_body.ts`) and the body is cancelled.
   * @default MAX_EXCHANGED_BYTES
   */
  maxBodyBytes?: number;
}

/**
 * The default bound on a whole response's body: 64 MiB, over ten times an SQS
 * receive of ten 1 MiB messages; a decompression bomb stops there.
 */
export const MAX_EXCHANGED_BYTES = 64 * 1024 * 1024;

/** A whole response: status, header pairs (names in lower case) and body bytes. */
export interface Exchanged {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Uint8Array;
}

/**
 * One request whose whole response is wanted at once: no `Response`, `Headers` or
 * stream objects on the way, for code that only reads a status or a small body.
 */
export type Exchange = (
  url: string | URL,
  init?: ExchangeInit,
) => Promise<Exchanged>;

const NO_BYTES = new Uint8Array(0);

/**
 * Reads an {@linkcode UpstreamResponse}'s body whole (or drops it, with `discard`)
 * into an {@linkcode Exchanged}; a body over `maxBytes` fails with a
 * `BodyTooLargeError`.
 *
 * @example
 * ```ts
 * const response = await wholeResponse({
 *   status: 201,
 *   statusText: "Created",
 *   headers: [["content-type", "text/plain"]],
 *   body: new Response("ok").body,
 *   decoded: false,
 * });
 * response.status; // 201
 * new TextDecoder().decode(response.body); // "ok"
 * ```
 */
export async function wholeResponse(
  response: UpstreamResponse,
  discard = false,
  maxBytes: number = MAX_EXCHANGED_BYTES,
): Promise<Exchanged> {
  let body: Uint8Array = NO_BYTES;
  if (response.body instanceof ReadableStream) {
    if (discard) await response.body.cancel();
    else body = await boundedBytes(response.body, maxBytes);
  } else if (response.body !== null && !discard) {
    if (response.body.length > maxBytes) {
      throw new BodyTooLargeError(maxBytes);
    }
    body = response.body;
  }
  return {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
    body,
  };
}

/**
 * An {@linkcode Exchange} over an {@linkcode Upstream}: the request, then its
 * response's body read whole. Like `upstream`, it does not follow redirects: a
 * 3xx is the response.
 *
 * @example
 * ```ts
 * import { createHttp1Client } from "./client.ts";
 * import { createUpstream } from "./upstream.ts";
 *
 * const exchange = exchangeOver(createUpstream({ http1: createHttp1Client() }));
 * const { status, body } = await exchange("http://127.0.0.1:8080/items");
 * ```
 */
export function exchangeOver(upstream: Upstream): Exchange {
  return async (url, init = {}) =>
    await wholeResponse(
      await upstream(url, {
        method: init.method,
        headers: pairsOf(init.headers),
        body: init.body,
        signal: init.signal,
      }),
      init.discardBody,
      init.maxBodyBytes,
    );
}

/**
 * An {@linkcode Exchange} over any `fetch` (tests, or a fetch with a proxy). Like
 * the pooled client, it does not follow redirects: a 3xx is the response.
 *
 * @example
 * ```ts
 * const exchange = fetchExchange();
 * const { status, body } = await exchange("http://127.0.0.1:8001/healthz");
 * ```
 */
export function fetchExchange(
  doFetch: typeof fetch = globalThis.fetch,
): Exchange {
  return exchangeOver(fetchUpstream(doFetch));
}

function pairsOf(
  headers: HeadersInit | undefined,
): [string, string][] | undefined {
  if (headers === undefined) return undefined;
  return Array.isArray(headers)
    ? headers as [string, string][]
    : [...new Headers(headers)];
}
