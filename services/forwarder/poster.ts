/**
 * The outbound POST of one message body.
 *
 * @module
 */
import { withDeadline } from "../../lib/deadline.ts";
import { type Exchange, fetchExchange } from "../../lib/http1/exchange.ts";

/** Options of {@linkcode createPoster}. */
export interface PosterOptions {
  /** URL that receives the POST. */
  endpoint: string;
  /** `Authorization` header value, sent exactly as given. */
  token: string;
  /** Time-out of one POST; reaching it is an error. */
  timeoutMs: number;
  /** `json` sends the Body as a JSON string, `raw` sends it unchanged. @default "json" */
  bodyMode?: "json" | "raw";
  /** The transport (the forwarder's pooled HTTP/1.1 client). @default `fetch` */
  exchange?: Exchange;
}

/** What the forwarder reads of the endpoint's reply. */
export interface PostReply {
  /** The HTTP status, whatever it is. */
  readonly status: number;
  /** The `Location` header of a redirect (3xx), which is not followed. */
  readonly location?: string;
  /** The `Retry-After` header of the reply, when it has one (a 3xx's too). */
  readonly retryAfter?: string;
}

/**
 * Headers added to one post after `Authorization` and `Content-Type`, computed from
 * the body exactly as sent (a signature covers it).
 */
export type ExtraHeaders = (sentBody: string) => [string, string][];

/**
 * Posts one message body and resolves with the reply's status. Rejects when no reply
 * came: refused connection, DNS failure, time-out, or `signal` aborted.
 */
export type Post = (
  body: string,
  signal?: AbortSignal,
  extraHeaders?: ExtraHeaders,
) => Promise<PostReply>;

/**
 * Returns a {@linkcode Post} for one endpoint. The reply body is dropped, not read: it
 * is not inspected (a connection whose reply came whole is reused; a longer reply's
 * connection is closed). Redirects are not followed: a 3xx is the reply, with its
 * `Location`.
 *
 * @example
 * ```ts
 * const post = createPoster({ endpoint: "http://127.0.0.1:9000/in", token: "Bearer x", timeoutMs: 30000 });
 * const { status } = await post("hello"); // body sent: "\"hello\""
 * ```
 */
export function createPoster(options: PosterOptions): Post {
  const exchange = options.exchange ?? fetchExchange();
  const raw = options.bodyMode === "raw";
  // Spelled as the original service's HTTP library sends them.
  const headers: [string, string][] = [
    ["Authorization", options.token],
    ["Content-Type", "application/json"],
  ];
  return (body, signal, extraHeaders) =>
    withDeadline(options.timeoutMs, signal, async (limit) => {
      const sent = raw ? body : JSON.stringify(body);
      const reply = await exchange(options.endpoint, {
        method: "POST",
        headers: extraHeaders ? [...headers, ...extraHeaders(sent)] : headers,
        body: sent,
        signal: limit,
        discardBody: true,
      });
      const { status } = reply;
      const header = (wanted: string) =>
        reply.headers.find(([name]) => name === wanted)?.[1];
      const location = status >= 300 && status <= 399
        ? header("location")
        : undefined;
      const retryAfter = header("retry-after");
      return {
        status,
        ...(location === undefined ? {} : { location }),
        ...(retryAfter === undefined ? {} : { retryAfter }),
      };
    }, `No reply within ${options.timeoutMs} ms`);
}
