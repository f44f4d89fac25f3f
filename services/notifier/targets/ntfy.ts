/**
 * `ntfy://[user:password@]host[:port]/topic[/topic...]` and `ntfys://`, or
 * `ntfy://topic` for ntfy.sh: a JSON publish to the server's root, as Apprise sends it.
 *
 * @module
 */
import {
  MASK,
  type Message,
  type Target,
  type TargetRequest,
  TargetUrlError,
} from "./target.ts";
import {
  basicAuth,
  basicCredentials,
  displayUserInfo,
  hostPort,
  invalidHeader,
  type UrlParts,
  validHost,
  validPort,
} from "./url_parts.ts";

const TOPIC = /^[a-z0-9_-]{1,64}$/i;
const CLOUD = "https://ntfy.sh";

/** Apprise's priority words and prefixes, first match wins. */
const PRIORITIES: [string, string][] = [
  ["l", "low"],
  ["mo", "low"],
  ["n", "default"],
  ["h", "high"],
  ["e", "max"],
  ["mi", "min"],
  ["ma", "max"],
  ["d", "default"],
  ["1", "min"],
  ["2", "low"],
  ["3", "default"],
  ["4", "high"],
  ["5", "max"],
];

/** Reads an ntfy URL; `?priority=`, `?tags=`, `?click=` and `?token=` as Apprise does. */
export function parseNtfyUrl(parts: UrlParts): Target {
  const secure = parts.scheme === "ntfys";
  const cloudHost = /^ntfy\.sh$/i.test(parts.host);
  const cloud = parts.path.length === 0 || cloudHost;
  const topics = cloud && !cloudHost
    ? [parts.host, ...parts.path]
    : [...parts.path];
  const token = parts.query.get("token");
  const display = `${parts.scheme}://${displayUserInfo(parts)}${
    cloud ? "" : `${hostPort(parts)}/`
  }${topics.join("/")}${token ? `?token=${MASK}` : ""}`;
  const fail = (what: string) =>
    new TargetUrlError(
      `"${display}": ${what}`,
    );
  if (!cloud && (!validHost(parts.host) || !validPort(parts))) {
    throw fail("expected ntfy://[user:password@]host[:port]/topic");
  }
  const bad = topics.find((topic) => !TOPIC.test(topic));
  if (topics.length === 0 || bad !== undefined) {
    throw fail(
      "expected topics of 1 to 64 letters, digits, _ or -: ntfy://[user:password@]host[:port]/topic",
    );
  }
  const priorityText = parts.query.get("priority");
  const priority = priorityText
    ? PRIORITIES.find(([prefix]) =>
      priorityText.toLowerCase().startsWith(prefix)
    )?.[1]
    : "default";
  if (priority === undefined) {
    throw fail("expected ?priority= min, low, default, high, max or 1 to 5");
  }
  // Sorted and unique, as Apprise's list parsing leaves them.
  const tags = [
    ...new Set(
      (parts.query.get("tags") ?? "").split(/[\s,;[\]]+/)
        .filter((tag) => tag !== ""),
    ),
  ].sort();
  const click = parts.query.get("click") || undefined;
  const root = cloud
    ? CLOUD
    : `${secure ? "https" : "http"}://${hostPort(parts)}`;
  const headers: Record<string, string> = {
    "content-type": "application/json",
  };
  if (token) headers.authorization = `Bearer ${token}`;
  else if (parts.user !== undefined) {
    headers.authorization = basicAuth(parts.user, parts.password);
  }
  if (priority !== "default") headers["x-priority"] = priority;
  if (click !== undefined) headers["x-click"] = click;
  if (tags.length > 0) headers["x-tags"] = tags.join(",");
  const badHeader = invalidHeader(headers);
  if (badHeader !== undefined) {
    throw fail(
      `the ${badHeader} header cannot carry this URL's value: no line breaks, and ?tags= and ?click= in Latin-1`,
    );
  }
  return {
    scheme: parts.scheme,
    service: "ntfy",
    display,
    secrets: [
      parts.password,
      token,
      parts.password && basicCredentials(parts.user ?? "", parts.password),
    ].filter((s): s is string => !!s),
    requests(message: Message): TargetRequest[] {
      const priority = message.priority;
      return topics.map((topic) => ({
        url: root,
        method: "POST",
        headers: priority === undefined
          ? headers
          : priority === "default"
          ? withoutPriority(headers)
          : { ...headers, "x-priority": priority },
        body: JSON.stringify({
          topic,
          ...(message.title ? { title: message.title } : {}),
          ...(message.body ? { message: message.body } : {}),
        }),
      }));
    },
  };
}

function withoutPriority(
  headers: Record<string, string>,
): Record<string, string> {
  const { "x-priority": _, ...rest } = headers;
  return rest;
}
