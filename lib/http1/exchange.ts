/**
 * Whole-answer calls: the {@linkcode Exchange} shape, over any {@linkcode RemoteCall}
 * (what the forwarder's posts and queue calls use).
 *
 * @module
 */

import {
  fetchRemoteCall,
  type RemoteAnswer,
  type RemoteCall,
} from "./remote_call.ts";

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

const NO_BYTES = new Uint8Array(0);

/** Reads a {@linkcode RemoteAnswer}'s body whole (or drops it) into an {@linkcode Exchanged}. */
export async function wholeAnswer(
  answer: RemoteAnswer,
  discard = false,
): Promise<Exchanged> {
  let body: Uint8Array = NO_BYTES;
  if (answer.body instanceof ReadableStream) {
    if (discard) await answer.body.cancel();
    else body = new Uint8Array(await new Response(answer.body).arrayBuffer());
  } else if (answer.body !== null && !discard) body = answer.body;
  return {
    status: answer.status,
    statusText: answer.statusText,
    headers: answer.headers,
    body,
  };
}

/**
 * An {@linkcode Exchange} over a {@linkcode RemoteCall}: the call, then its body
 * read whole. Like the remote call, it does not follow redirects: a 3xx is the
 * answer.
 *
 * @example
 * ```ts
 * const exchange = exchangeOver(createRemoteCall({ http1: createHttp1Client() }));
 * const { status, body } = await exchange("http://127.0.0.1:8080/items");
 * ```
 */
export function exchangeOver(call: RemoteCall): Exchange {
  return async (url, init = {}) =>
    await wholeAnswer(
      await call(url, {
        method: init.method,
        headers: pairsOf(init.headers),
        body: init.body,
        signal: init.signal,
      }),
      init.discardBody,
    );
}

/** An {@linkcode Exchange} over `fetch` (tests, or a fetch with a proxy). */
export function fetchExchange(
  doFetch: typeof fetch = globalThis.fetch,
): Exchange {
  return exchangeOver(fetchRemoteCall(doFetch));
}

function pairsOf(
  headers: HeadersInit | undefined,
): [string, string][] | undefined {
  if (headers === undefined) return undefined;
  return Array.isArray(headers)
    ? headers as [string, string][]
    : [...new Headers(headers)];
}
