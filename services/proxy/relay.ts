/**
 * The remote call of the proxy: method, headers and streamed body out; status,
 * headers and streamed body back; 502 and 504 when the remote fails.
 *
 * @module
 */
import { errorText, type Log } from "../../lib/log.ts";
import { createDeadlines } from "./_deadlines.ts";
import {
  callerHeaderPairs,
  prepareCallerHeaders,
  remoteRequestHeaders,
} from "./_headers.ts";
import type { Http1RequestInit } from "../../lib/http1/client.ts";
import type { ProxyRoute } from "./routes.ts";

/** Options of {@linkcode createRelay}. */
export interface RelayOptions {
  /**
   * The HTTP client: the pooled client of `lib/http1/client.ts` (which applies the
   * caller's header rules while building its answers), or `fetch`.
   */
  fetch: typeof fetch;
  /** Where failed remote calls are logged. */
  log: Log;
  /** Value of `Access-Control-Allow-Origin` on every answer. */
  allowOrigin: string;
  /**
   * Longest wait for the remote's status line and headers, in ms, counted from the
   * last byte of the request body sent.
   */
  timeoutMs: number;
}

/** Relays `request` to `target`, a URL already resolved within `route`. */
export type Relay = (
  request: Request,
  route: ProxyRoute,
  target: string | URL,
) => Promise<Response>;

/**
 * Returns the relay function. The request body is passed on as a stream, and the
 * remote body is returned as a stream, so neither is held whole in memory. When the
 * caller goes away mid-answer, the server cancels the returned stream, which ends
 * the remote call too.
 *
 * @example
 * ```ts
 * const relay = createRelay({ fetch, log, allowOrigin: "*", timeoutMs: 30_000 });
 * const response = await relay(request, route, "https://example.com/v1/users");
 * ```
 */
export function createRelay(options: RelayOptions): Relay {
  const { log, allowOrigin, timeoutMs } = options;
  const fail = (status: number, message: string) =>
    Response.json({ message }, {
      status,
      headers: { "access-control-allow-origin": allowOrigin },
    });

  const timedOut = new Error(`No answer within ${timeoutMs} ms`);
  const deadlines = createDeadlines(timeoutMs);

  return async function relay(request, route, target) {
    const controller = new AbortController();
    const deadline = deadlines.start(() => controller.abort(timedOut));
    const hasBody = request.method !== "GET" && request.method !== "HEAD" &&
      request.body !== null;
    // The time-out counts from the last byte sent: a long upload is not a slow remote.
    const body = hasBody
      ? request.body!.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, stream) {
            deadline.restart();
            stream.enqueue(chunk);
          },
        }),
      )
      : undefined;
    let prepared = false;
    const init: Http1RequestInit = {
      method: request.method,
      headers: remoteRequestHeaders(request.headers),
      body,
      redirect: "manual",
      signal: controller.signal,
      answerHeaders(pairs) {
        prepared = true;
        return callerHeaderPairs(pairs, allowOrigin);
      },
    };
    let remote: Response;
    try {
      remote = await options.fetch(target, init);
    } catch (error) {
      if (controller.signal.reason === timedOut) {
        log.warn(
          `Remote of route "${route.name}" did not answer within ${timeoutMs} ms`,
        );
        return fail(
          504,
          `Remote of route "${route.name}" did not answer within ${timeoutMs} ms`,
        );
      }
      log.warn(
        `Remote of route "${route.name}" is unreachable: ${errorText(error)}`,
      );
      return fail(502, `Remote of route "${route.name}" is unreachable`);
    } finally {
      deadline.done();
    }
    if (prepared) return remote;
    try {
      // Answers of a stand-in with mutable headers can be changed in place.
      prepareCallerHeaders(remote.headers, allowOrigin);
      return remote;
    } catch {
      // fetch's answers have immutable headers: copy them.
      const response = new Response(remote.body, {
        status: remote.status,
        statusText: remote.statusText,
        headers: remote.headers,
      });
      prepareCallerHeaders(response.headers, allowOrigin);
      return response;
    }
  };
}
