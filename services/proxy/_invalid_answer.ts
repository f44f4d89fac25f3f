/**
 * Telling a remote that answered badly from one that could not be reached: both are
 * a 502, but only the second is a network problem.
 *
 * @module
 */
import { InvalidResponseError } from "../../lib/http1/client.ts";
import { errorText } from "../../lib/log.ts";

/**
 * The parse errors of hyper, the HTTP client under Deno's `fetch`, as they read in
 * its messages: the remote answered, but not in HTTP/1.1.
 */
const FETCH_PARSE_ERROR =
  /invalid HTTP (?:version|status-code|header) parsed|(?:invalid|unexpected) (?:content-length|transfer-encoding) parsed|message head is too large/;

/**
 * Whether `error`, from a remote call of the pooled client or of `fetch`, says that
 * the remote's answer broke HTTP (rather than that the remote could not be reached).
 */
export function isInvalidAnswer(error: unknown): boolean {
  if (error instanceof InvalidResponseError) return true;
  return error instanceof Error && FETCH_PARSE_ERROR.test(errorText(error));
}
