/**
 * The WARNING line of a message deleted after a reply that is not a success.
 *
 * @module
 */
import { STATUS_CODES } from "node:http";
import type { PostReply } from "./poster.ts";

/** Most characters of a `Location` value quoted in the line. */
const LOCATION_MAX = 200;

/** Characters `JSON.stringify` leaves as they are that could break a log line. */
const LINE_BREAKING = /[\u0080-\u009f\u2028\u2029]/g;

/**
 * `Location "https://..."` for the log: quoted with every control character escaped
 * (it comes from the endpoint), cut to a sane length.
 */
function locationText(location: string | undefined): string {
  if (location === undefined) return "no Location";
  const cut = location.length > LOCATION_MAX
    ? `${location.slice(0, LOCATION_MAX)}…`
    : location;
  return `Location ${
    JSON.stringify(cut).replace(
      LINE_BREAKING,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    )
  }`;
}

/**
 * Returns the line that says a message was deleted although the endpoint did not
 * return 2xx (any status deletes the message: docs/decisions.md): its id, the status and its name, for
 * a redirect its `Location` (not followed), and what to set to keep such messages.
 *
 * @example
 * ```ts
 * deletedReplyWarning("m-1", { status: 401 });
 * // "Endpoint returned 401 Unauthorized for message m-1: deleted (any status deletes
 * //  the message; list 401 in FORWARD_RETRY_STATUSES to keep such messages)"
 * ```
 */
export function deletedReplyWarning(
  messageId: string,
  reply: PostReply,
): string {
  const { status } = reply;
  const name = STATUS_CODES[status];
  const returned = `Endpoint returned ${status}${name ? ` ${name}` : ""}`;
  const keep = `list ${status} in FORWARD_RETRY_STATUSES to keep such messages`;
  if (status >= 300 && status <= 399) {
    return `${returned} (${
      locationText(reply.location)
    }) for message ${messageId}: deleted, the redirect not followed (any status deletes the message; set HTTP_ENDPOINT to the new address, or ${keep})`;
  }
  return `${returned} for message ${messageId}: deleted (any status deletes the message; ${keep})`;
}
