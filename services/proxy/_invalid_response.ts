/**
 * What a failed upstream request says about the upstream: all are a 502, but only some are
 * a network problem.
 *
 * @module
 */
import {
  ConnectionClosedError,
  InvalidResponseError,
  ProxyRefusedError,
  SocketError,
} from "../../lib/http1/errors.ts";

/**
 * Whether `error`, from an upstream request, says that the upstream's response broke HTTP: the
 * pooled client's {@linkcode InvalidResponseError}. (`fetch`'s errors are not told
 * apart: they carry no type, and their text is not a contract.)
 */
export function isInvalidResponse(error: unknown): boolean {
  return error instanceof InvalidResponseError;
}

/**
 * How the proxy describes a failed upstream request, by the class of its error (see
 * `lib/http1/errors.ts`): an invalid response (the pooled client's
 * `InvalidResponseError`), a network failure (its `SocketError` and
 * `ConnectionClosedError`), a refusal of the outbound proxy (its
 * `ProxyRefusedError`), or either of them (anything else: `fetch`, whose
 * `TypeError` does not say which, or a request the client refused).
 */
export function upstreamFailureText(error: unknown): string {
  if (isInvalidResponse(error)) return "sent an invalid HTTP response";
  if (error instanceof ProxyRefusedError) {
    return "is unreachable: the outbound proxy refused the request";
  }
  if (error instanceof SocketError || error instanceof ConnectionClosedError) {
    return "is unreachable";
  }
  return "is unreachable or sent an invalid HTTP response";
}
