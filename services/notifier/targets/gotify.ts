/**
 * `gotify://host[:port][/path]/TOKEN` and `gotifys://`: `POST {server}/message` with
 * the application token in `X-Gotify-Key`.
 *
 * @module
 */
import {
  MASK,
  type Message,
  type NotePriority,
  type Target,
  type TargetRequest,
  TargetUrlError,
} from "./target.ts";
import {
  hostPort,
  invalidHeader,
  type UrlParts,
  validHost,
  validPort,
} from "./url_parts.ts";

/** Apprise's priority words and numbers, first prefix match wins. */
const PRIORITIES: [string, number][] = [
  ["l", 0],
  ["m", 3],
  ["n", 5],
  ["h", 8],
  ["e", 10],
  ["10", 10],
  ["0", 0],
  ["1", 0],
  ["2", 0],
  ["3", 3],
  ["4", 3],
  ["5", 5],
  ["6", 5],
  ["7", 5],
  ["8", 8],
  ["9", 8],
];

/** A note's priority as a Gotify number. */
const GOTIFY_PRIORITY: Record<NotePriority, number> = {
  min: 0,
  low: 3,
  default: 5,
  high: 8,
  max: 10,
};

/** Reads a Gotify URL; `?priority=` as Apprise does (default 5). */
export function parseGotifyUrl(parts: UrlParts): Target {
  const prefix = parts.path.slice(0, -1);
  const token = parts.path.at(-1);
  const path = prefix.length === 0
    ? "/"
    : `/${prefix.map(encodeURIComponent).join("/")}/`;
  // Without a path, what stands in the host may well be the token.
  const display = token === undefined
    ? `${parts.scheme}://${MASK}`
    : `${parts.scheme}://${hostPort(parts)}${path}${MASK}`;
  const fail = (what: string) => new TargetUrlError(`"${display}": ${what}`);
  if (
    !validHost(parts.host) || !validPort(parts) || token === undefined ||
    parts.user !== undefined || invalidHeader({ "x-gotify-key": token })
  ) {
    throw fail("expected gotify://host[:port][/path]/TOKEN");
  }
  const priorityText = parts.query.get("priority");
  const priority = priorityText
    ? PRIORITIES.find(([p]) => priorityText.toLowerCase().startsWith(p))?.[1]
    : 5;
  if (priority === undefined) {
    throw fail(
      "expected ?priority= low, moderate, normal, high, emergency or 0 to 10",
    );
  }
  const url = `${parts.scheme === "gotifys" ? "https" : "http"}://${
    hostPort(parts)
  }${path}message`;
  return {
    scheme: parts.scheme,
    service: "Gotify",
    display,
    secrets: [token],
    requests(message: Message): TargetRequest[] {
      return [{
        url,
        method: "POST",
        headers: { "content-type": "application/json", "x-gotify-key": token },
        body: JSON.stringify({
          priority: message.priority === undefined
            ? priority
            : GOTIFY_PRIORITY[message.priority],
          title: message.title,
          message: message.body,
        }),
      }];
    },
  };
}
