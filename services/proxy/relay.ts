/**
 * The proxy's request to the upstream: method, headers and streamed body out; status,
 * headers (redirects within the route's base pointed at the proxy) and streamed body
 * back; 502 when the upstream is unreachable or its response is not valid HTTP, 504 when
 * it is too slow.
 *
 * @module
 */
import { errorText, type Log } from "../../lib/log.ts";
import { createDeadlines } from "./_deadlines.ts";
import {
  clientHeaderPairs,
  declaresBody,
  notForwarded,
  upstreamRequestHeaders,
} from "./_headers.ts";
import { corsHeaders } from "./cors.ts";
import { proxiedLocation } from "./_location.ts";
import { isInvalidResponse, upstreamFailureText } from "./_invalid_response.ts";
import type { Upstream, UpstreamResponse } from "../../lib/http1/upstream.ts";
import { DecodedTooLargeError } from "../../lib/http1/errors.ts";
import { boundedBody, READ_AHEAD_BYTES, readAhead } from "./_decoded_limit.ts";
import type { ProxyRoute } from "./routes.ts";
import { statusOutcome, type UpstreamOutcome } from "./proxy_metrics.ts";

/**
 * Hears how a body is read: `"wait"` when a part is asked for and has not come yet,
 * `"part"` when it came, and `"end"` once when the body ends (whole, cut short or
 * cancelled), with the error when it failed. Between a `"part"` and the next
 * `"wait"`, the reader of the body holds things up, not the one sending it.
 */
type BodyWatcher = (event: "wait" | "part" | "end", error?: unknown) => void;

/** Options of {@linkcode createRelay}. */
export interface RelayOptions {
  /** How upstream requests are made (`createUpstream`: the pooled client, or `fetch`). */
  call: Upstream;
  /** Where failed upstream requests are logged. */
  log: Log;
  /** Value of `Access-Control-Allow-Origin` on every response. */
  allowOrigin: string;
  /** This proxy's entry in the `Via` header of every upstream request. */
  via: string;
  /**
   * Longest wait on the upstream, in ms: for its status line and headers (not counting
   * the time the client takes to upload the body), and for each part of its body the
   * client is waiting for (after which the response is cut short). A client that reads
   * slowly does not count against the upstream.
   */
  timeoutMs: number;
  /**
   * Longest wait on the client, in ms: for the next part of its upload, or for it to
   * ask for the next part of the response. Past it the call ends (an upload with 408),
   * so a stalled client does not hold a connection to the upstream for ever.
   * @default 10 × timeoutMs
   */
  clientTimeoutMs?: number;
  /**
   * Client headers never forwarded, lower case (`PROXY_REMOVE_HEADERS`), besides the
   * hop-by-hop ones, `Host`, `Expect` and `Accept-Encoding`. @default ["cookie", "cookie2"]
   */
  removeHeaders?: readonly string[];
  /**
   * Told how each upstream request ended and how long it took to its response's
   * headers, in seconds (the proxy's metrics). @default none
   */
  onUpstream?: (
    route: ProxyRoute,
    outcome: UpstreamOutcome,
    seconds: number,
  ) => void;
  /**
   * Bound on the bytes of a body decoded on the way (gzip, deflate, br):
   * `PROXY_MAX_RESPONSE_BYTES`. One found over it within the first MiB is a 502;
   * later, the response is cut short. @default Infinity
   */
  maxDecodedBytes?: number;
  /**
   * The connection partition of a request (`private_headers.ts`): connections to
   * the upstream are shared only within one. @default none: all share
   */
  partition?: (request: Request) => string;
  /**
   * Routes whose connections are not reused (`PROXY_ROUTE_<NAME>_KEEPALIVE=false`).
   * @default none
   */
  keepAliveOff?: ReadonlySet<string>;
}

/** What a route changes in the headers of its relayed calls, both ways. */
export interface RelayAdditions {
  /** The header pairs sent to the upstream, given the client's as relayed. */
  request(pairs: [string, string][]): [string, string][];
  /** The header pairs of a response (the proxy's own too), as the client gets them. */
  response(pairs: [string, string][]): [string, string][];
}

/**
 * A request counted by the rate limits, on its way to the relay, which puts their
 * headers on its response (`_rate_limiting.ts`).
 */
export interface CountedRequest {
  /** Its `RateLimit-Policy` and `RateLimit` pairs. */
  pairs(): [string, string][];
  /** Whether the relay put them on its response. */
  applied: boolean;
}

/**
 * Relays `request` to `target`, a URL already resolved within `route`, with the
 * route's `additions`.
 */
export type Relay = (
  request: Request,
  route: ProxyRoute,
  target: string | URL,
  additions?: RelayAdditions,
) => Promise<Response>;

/**
 * Returns the relay function. The request body is passed on as a stream, and the
 * upstream body is returned as a stream, so neither is held whole in memory. When the
 * client goes away mid-response, the server cancels the returned stream, which ends
 * the upstream request too.
 *
 * @example
 * ```ts
 * import { createUpstream } from "../../lib/http1/upstream.ts";
 * import { createLog } from "../../lib/log.ts";
 * import { parseRoutes } from "./routes.ts";
 *
 * const [route] = parseRoutes("api=https://example.com/v1");
 * const request = new Request("http://localhost:8002/api/users");
 * const relay = createRelay({
 *   call: createUpstream(),
 *   log: createLog("proxy"),
 *   allowOrigin: "*",
 *   timeoutMs: 30_000,
 *   via: "1.1 homewire-proxy-1",
 * });
 * const response = await relay(request, route!, "https://example.com/v1/users");
 * ```
 */
export function createRelay(options: RelayOptions): Relay {
  const { log, allowOrigin, timeoutMs } = options;
  const failHeaders = Object.entries(corsHeaders(allowOrigin));
  const fail = (
    status: number,
    message: string,
    additions: RelayAdditions | undefined,
  ) =>
    Response.json({ message }, {
      status,
      headers: additions ? additions.response(failHeaders) : failHeaders,
    });

  const clientTimeoutMs = options.clientTimeoutMs ?? 10 * timeoutMs;
  const timedOut = new Error(`No response within ${timeoutMs} ms`);
  const clientGone = new Error("The client went away during the upload");
  const clientStalled = new Error(
    `The client sent or read nothing for ${clientTimeoutMs} ms`,
  );
  const deadlines = createDeadlines(timeoutMs);
  const removed = notForwarded(options.removeHeaders);
  const maxDecodedBytes = options.maxDecodedBytes ?? Infinity;
  const tooLarge = (route: ProxyRoute, error: DecodedTooLargeError) =>
    `The upstream of route "${route.name}" sent a ${error.coding} body that decodes to over ${error.maxBytes} bytes (PROXY_MAX_RESPONSE_BYTES)`;

  const onUpstream = options.onUpstream;
  return async function relay(request, route, target, additions) {
    const started = onUpstream ? performance.now() : 0;
    const ended = (outcome: UpstreamOutcome) =>
      onUpstream?.(route, outcome, (performance.now() - started) / 1000);
    const controller = new AbortController();
    let phase: "head" | "body" | "done" = "head";
    // Whose turn it is: the upstream's time-out or the client's runs.
    let turn: "upstream" | "client" = "upstream";
    // Whether the body is read before the response's head goes out.
    let readingAhead = false;
    const deadline = deadlines.start(() => {
      if (turn === "client") {
        // A WARNING: when the response is cut, Deno prints the stream's error after it.
        log.warn(
          `Client of route "${route.name}" sent or read nothing for ${clientTimeoutMs} ms: call ended`,
        );
        return controller.abort(clientStalled);
      }
      if (phase === "body") {
        log.warn(
          `Upstream of route "${route.name}" sent nothing for ${timeoutMs} ms in the middle of its response: cut short`,
        );
      }
      controller.abort(timedOut);
    });
    const upstreamTurn = () => {
      turn = "upstream";
      deadline.restart();
    };
    const clientTurn = () => {
      turn = "client";
      deadline.restart(clientTimeoutMs);
    };
    // The time-out counts while a part of the upstream's body is awaited, not while
    // the client has not asked for the next one; the body's end stops it. Deno's
    // server also prints the error of a broken body: this line says whose.
    const bodyRead: BodyWatcher = (event, error) => {
      if (phase === "done") return;
      if (event === "wait") return upstreamTurn();
      if (event === "part") return clientTurn();
      if (
        phase === "body" && error !== undefined && !controller.signal.aborted
      ) {
        if (error instanceof DecodedTooLargeError) {
          log.warn(
            `${tooLarge(route, error)}: ${readingAhead ? "502" : "cut short"}`,
          );
        } else {
          const what = isInvalidResponse(error)
            ? `sent an invalid HTTP response body (${
              readingAhead ? "502" : "cut short"
            })`
            : "broke off its response";
          log.warn(
            `Upstream of route "${route.name}" ${what}: ${errorText(error)}`,
          );
        }
      }
      phase = "done";
      deadline.done();
    };
    // The other way round for the upload: the time the client takes to send it is
    // not the upstream's. A client that goes away mid-upload ends the upstream request.
    // A POST without a body is relayed without one, not with an empty chunked one.
    const body = request.body === null || !declaresBody(request.headers)
      ? undefined
      : watched(
        request.body,
        (event, error) => {
          if (phase !== "head") return;
          if (event === "wait") clientTurn();
          else if (error === undefined) upstreamTurn();
          else controller.abort(clientGone);
        },
        controller.signal,
      );
    // A redirect within the route's base leads the client back through the proxy.
    const relocate = (value: string) => proxiedLocation(value, route, target);
    let upstream: UpstreamResponse;
    const sent = upstreamRequestHeaders(
      request.headers,
      options.via,
      removed,
    );
    try {
      upstream = await options.call(target, {
        method: request.method,
        headers: additions ? additions.request(sent) : sent,
        body,
        signal: controller.signal,
        partition: options.partition?.(request),
        reuse: !options.keepAliveOff?.has(route.name),
      });
    } catch (error) {
      bodyRead("end");
      if (controller.signal.reason === clientStalled) {
        ended("client_timeout");
        return fail(408, clientStalled.message, additions);
      }
      if (controller.signal.reason === clientGone) {
        log.debug(
          `Client of route "${route.name}" went away during its upload: upstream request ended`,
        );
        ended("client_gone");
        return fail(400, clientGone.message, additions);
      }
      if (controller.signal.reason === timedOut) {
        log.warn(
          `Upstream of route "${route.name}" did not respond within ${timeoutMs} ms`,
        );
        ended("timeout");
        return fail(
          504,
          `Upstream of route "${route.name}" did not respond within ${timeoutMs} ms`,
          additions,
        );
      }
      // fetch's errors quote the URL: its query may carry the client's keys.
      const href = String(target);
      const query = href.indexOf("?");
      const reason = query < 0 ? errorText(error) : errorText(error)
        .replaceAll(href, `${href.slice(0, query)}?…`);
      // Also a 502, but not always a network problem: say what is known.
      const what = upstreamFailureText(error);
      log.warn(`Upstream of route "${route.name}" ${what}: ${reason}`);
      ended("error");
      return fail(
        502,
        `Upstream of route "${route.name}" ${what}`,
        additions,
      );
    }
    if (phase === "head") phase = "body";
    if (onUpstream) ended(statusOutcome(upstream.status));
    const pairs = clientHeaderPairs(
      upstream.headers,
      allowOrigin,
      relocate,
      upstream.decoded,
    );
    const headers = additions ? additions.response(pairs) : pairs;
    let responseBody = upstream.body;
    if (responseBody instanceof ReadableStream) {
      // The client's turn until the server asks for the first part.
      clientTurn();
      const coding = upstream.decoded
        ? upstream.headers.find(([name]) => name === "content-encoding")?.[1]
          .trim().toLowerCase()
        : undefined;
      if (coding !== undefined && maxDecodedBytes < Infinity) {
        responseBody = boundedBody(responseBody, coding, maxDecodedBytes);
      }
      responseBody = watched(responseBody, bodyRead, controller.signal);
      if (coding !== undefined) {
        // A decompression bomb is found early: a 502, not a response cut short.
        try {
          readingAhead = true;
          responseBody = await readAhead(responseBody, READ_AHEAD_BYTES);
          readingAhead = false;
        } catch (error) {
          if (error instanceof DecodedTooLargeError) {
            return fail(502, tooLarge(route, error), additions);
          }
          if (controller.signal.reason === timedOut) {
            return fail(
              504,
              `Upstream of route "${route.name}" did not respond within ${timeoutMs} ms`,
              additions,
            );
          }
          return fail(
            502,
            `Upstream of route "${route.name}" ${upstreamFailureText(error)}`,
            additions,
          );
        }
      }
    } else bodyRead("end");
    return new Response(responseBody, {
      status: upstream.status,
      statusText: upstream.statusText,
      headers,
    });
  };
}

/**
 * `body`, passed on part by part, telling `onRead` how it is read. An abort of
 * `signal` cancels `body` and errors the copy at once, also while nobody reads it
 * (`fetch` fails only a read under way).
 */
function watched(
  body: ReadableStream<Uint8Array>,
  onRead: BodyWatcher,
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      signal.addEventListener("abort", () => {
        reader.cancel(signal.reason).catch(() => {});
        try {
          controller.error(signal.reason);
        } catch {
          // already closed
        }
      }, { once: true });
    },
    async pull(controller) {
      onRead("wait");
      try {
        const { done, value } = await reader.read();
        if (done) {
          onRead("end");
          controller.close();
        } else {
          onRead("part");
          controller.enqueue(value);
        }
      } catch (error) {
        onRead("end", error);
        controller.error(error);
      }
    },
    cancel(reason) {
      onRead("end");
      return reader.cancel(reason);
    },
  });
}
