/**
 * The remote call of the proxy: method, headers and streamed body out; status,
 * headers (redirects within the route's base pointed at the proxy) and streamed body
 * back; 502 when the remote is unreachable or its answer is not valid HTTP, 504 when
 * it is too slow.
 *
 * @module
 */
import { errorText, type Log } from "../../lib/log.ts";
import { createDeadlines } from "./_deadlines.ts";
import {
  callerHeaderPairs,
  declaresBody,
  remoteRequestHeaders,
} from "./_headers.ts";
import { proxiedLocation } from "./_location.ts";
import { failedCallText, isInvalidAnswer } from "./_invalid_answer.ts";
import type { Upstream, UpstreamResponse } from "../../lib/http1/upstream.ts";
import type { ProxyRoute } from "./routes.ts";

/**
 * Hears how a body is read: `"wait"` when a part is asked for and has not come yet,
 * `"part"` when it came, and `"end"` once when the body ends (whole, cut short or
 * cancelled), with the error when it failed. Between a `"part"` and the next
 * `"wait"`, the reader of the body holds things up, not the one sending it.
 */
type BodyWatcher = (event: "wait" | "part" | "end", error?: unknown) => void;

/** Options of {@linkcode createRelay}. */
export interface RelayOptions {
  /** The upstream (`createUpstream`: the pooled client, or `fetch`). */
  call: Upstream;
  /** Where failed remote calls are logged. */
  log: Log;
  /** Value of `Access-Control-Allow-Origin` on every answer. */
  allowOrigin: string;
  /** This proxy's entry in the `Via` header of every remote call. */
  via: string;
  /**
   * Longest wait on the remote, in ms: for its status line and headers (not counting
   * the time the caller takes to upload the body), and for each part of its body the
   * caller is waiting for (after which the answer is cut short). A caller that reads
   * slowly does not count against the remote.
   */
  timeoutMs: number;
  /**
   * Longest wait on the caller, in ms: for the next part of its upload, or for it to
   * ask for the next part of the answer. Past it the call ends (an upload with 408),
   * so a stalled caller does not hold a connection to the remote for ever.
   * @default 10 × timeoutMs
   */
  callerTimeoutMs?: number;
}

/** What a route changes in the headers of its relayed calls, both ways. */
export interface RelayAdditions {
  /** The header pairs sent to the remote, given the caller's as relayed. */
  request(pairs: [string, string][]): [string, string][];
  /** The header pairs of an answer (the proxy's own too), as the caller gets them. */
  answer(pairs: [string, string][]): [string, string][];
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
 * remote body is returned as a stream, so neither is held whole in memory. When the
 * caller goes away mid-answer, the server cancels the returned stream, which ends
 * the remote call too.
 *
 * @example
 * ```ts
 * const relay = createRelay({
 *   call: createUpstream(),
 *   log,
 *   allowOrigin: "*",
 *   timeoutMs: 30_000,
 *   via: "1.1 homewire-proxy-1",
 * });
 * const response = await relay(request, route, "https://example.com/v1/users");
 * ```
 */
export function createRelay(options: RelayOptions): Relay {
  const { log, allowOrigin, timeoutMs } = options;
  const failHeaders: [string, string][] = [[
    "access-control-allow-origin",
    allowOrigin,
  ]];
  const fail = (
    status: number,
    message: string,
    additions: RelayAdditions | undefined,
  ) =>
    Response.json({ message }, {
      status,
      headers: additions ? additions.answer(failHeaders) : failHeaders,
    });

  const callerTimeoutMs = options.callerTimeoutMs ?? 10 * timeoutMs;
  const timedOut = new Error(`No answer within ${timeoutMs} ms`);
  const callerGone = new Error("The caller went away during the upload");
  const callerStalled = new Error(
    `The caller sent or read nothing for ${callerTimeoutMs} ms`,
  );
  const deadlines = createDeadlines(timeoutMs);

  return async function relay(request, route, target, additions) {
    const controller = new AbortController();
    let phase: "head" | "body" | "done" = "head";
    // Whose turn it is: the remote's time-out or the caller's runs.
    let turn: "remote" | "caller" = "remote";
    const deadline = deadlines.start(() => {
      if (turn === "caller") {
        // A WARNING: when the answer is cut, Deno prints the stream's error after it.
        log.warn(
          `Caller of route "${route.name}" sent or read nothing for ${callerTimeoutMs} ms: call ended`,
        );
        return controller.abort(callerStalled);
      }
      if (phase === "body") {
        log.warn(
          `Remote of route "${route.name}" sent nothing for ${timeoutMs} ms in the middle of its answer: cut short`,
        );
      }
      controller.abort(timedOut);
    });
    const remoteTurn = () => {
      turn = "remote";
      deadline.restart();
    };
    const callerTurn = () => {
      turn = "caller";
      deadline.restart(callerTimeoutMs);
    };
    // The time-out counts while a part of the remote's body is awaited, not while
    // the caller has not asked for the next one; the body's end stops it. Deno's
    // server also prints the error of a broken body: this line says whose.
    const bodyRead: BodyWatcher = (event, error) => {
      if (phase === "done") return;
      if (event === "wait") return remoteTurn();
      if (event === "part") return callerTurn();
      if (
        phase === "body" && error !== undefined && !controller.signal.aborted
      ) {
        const what = isInvalidAnswer(error)
          ? "sent an invalid HTTP response body (cut short)"
          : "broke off its answer";
        log.warn(
          `Remote of route "${route.name}" ${what}: ${errorText(error)}`,
        );
      }
      phase = "done";
      deadline.done();
    };
    // The other way round for the upload: the time the caller takes to send it is
    // not the remote's. A caller that goes away mid-upload ends the remote call.
    // A POST without a body is relayed without one, not with an empty chunked one.
    const body = request.body === null || !declaresBody(request.headers)
      ? undefined
      : watched(
        request.body,
        (event, error) => {
          if (phase !== "head") return;
          if (event === "wait") callerTurn();
          else if (error === undefined) remoteTurn();
          else controller.abort(callerGone);
        },
        controller.signal,
      );
    // A redirect within the route's base leads the caller back through the proxy.
    const relocate = (value: string) => proxiedLocation(value, route, target);
    let remote: UpstreamResponse;
    const sent = remoteRequestHeaders(request.headers, options.via);
    try {
      remote = await options.call(target, {
        method: request.method,
        headers: additions ? additions.request(sent) : sent,
        body,
        signal: controller.signal,
      });
    } catch (error) {
      bodyRead("end");
      if (controller.signal.reason === callerStalled) {
        return fail(408, callerStalled.message, additions);
      }
      if (controller.signal.reason === callerGone) {
        log.debug(
          `Caller of route "${route.name}" went away during its upload: remote call ended`,
        );
        return fail(400, callerGone.message, additions);
      }
      if (controller.signal.reason === timedOut) {
        log.warn(
          `Remote of route "${route.name}" did not answer within ${timeoutMs} ms`,
        );
        return fail(
          504,
          `Remote of route "${route.name}" did not answer within ${timeoutMs} ms`,
          additions,
        );
      }
      // fetch's errors quote the URL: its query may carry the caller's keys.
      const href = String(target);
      const query = href.indexOf("?");
      const reason = query < 0 ? errorText(error) : errorText(error)
        .replaceAll(href, `${href.slice(0, query)}?…`);
      // Also a 502, but not always a network problem: say what is known.
      const what = failedCallText(error);
      log.warn(`Remote of route "${route.name}" ${what}: ${reason}`);
      return fail(
        502,
        `Remote of route "${route.name}" ${what}`,
        additions,
      );
    }
    if (phase === "head") phase = "body";
    const pairs = callerHeaderPairs(
      remote.headers,
      allowOrigin,
      relocate,
      remote.decoded,
    );
    const headers = additions ? additions.answer(pairs) : pairs;
    let answer = remote.body;
    if (answer instanceof ReadableStream) {
      // The caller's turn until the server asks for the first part.
      callerTurn();
      answer = watched(answer, bodyRead, controller.signal);
    } else bodyRead("end");
    return new Response(answer, {
      status: remote.status,
      statusText: remote.statusText,
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
