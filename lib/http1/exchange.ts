/**
 * Whole-answer calls: the {@linkcode Exchange} shape the pooled client's `exchange()`
 * has, and the same over any `fetch`.
 *
 * @module
 */

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

/**
 * Reads a `Response` whole into an {@linkcode Exchanged} (or drops its body, with
 * `discard`).
 *
 * @example
 * ```ts
 * const answer = await wholeAnswer(new Response("ok", { status: 201 }));
 * answer.status; // 201
 * new TextDecoder().decode(answer.body); // "ok"
 * ```
 */
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
  return async (url, init = {}) =>
    await wholeAnswer(
      await doFetch(url, { ...init, redirect: "manual" }),
      init.discardBody,
    );
}
