/**
 * What a failed upstream request says about the upstream: all are a 502, but only some are
 * a network problem.
 *
 * @module
 */
import { InvalidResponseError } from "../../lib/http1/client.ts";

/**
 * Whether `error`, from an upstream request, says that the upstream's answer broke HTTP: the
 * pooled client's {@linkcode InvalidResponseError}. (`fetch`'s errors are not told
 * apart: they carry no type, and their text is not a contract.)
 */
export function isInvalidResponse(error: unknown): boolean {
  return error instanceof InvalidResponseError;
}

/**
 * How the proxy describes a failed upstream request: an invalid response (the pooled
 * client), a network failure (the pooled client's connection errors), or either of
 * them (`fetch`, whose `TypeError` does not say which).
 */
export function upstreamFailureText(error: unknown): string {
  if (isInvalidResponse(error)) return "answered with an invalid HTTP response";
  if (error instanceof TypeError) {
    return "is unreachable or answered with an invalid HTTP response";
  }
  return "is unreachable";
}
