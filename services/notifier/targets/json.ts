/**
 * `json://[user:password@]host[:port][/path]` and `jsons://`: Apprise's generic JSON
 * post `{"version":"1.0","title","message","attachments":[],"type"}`.
 *
 * @module
 */
import {
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

const METHODS = ["POST", "PUT"];

/**
 * Reads a JSON URL. As in Apprise, `?method=` picks the method (POST or PUT here),
 * `+name=value` adds a header, `-name=value` a query parameter of the request, and
 * `:name=value` a member of the body.
 */
export function parseJsonUrl(parts: UrlParts): Target {
  const path = parts.path.length === 0
    ? "/"
    : `/${parts.path.map(encodeURIComponent).join("/")}${
      parts.trailingSlash ? "/" : ""
    }`;
  const display = `${parts.scheme}://${displayUserInfo(parts)}${
    hostPort(parts)
  }${path}`;
  const fail = (what: string) => new TargetUrlError(`"${display}": ${what}`);
  if (!validHost(parts.host) || !validPort(parts)) {
    throw fail("expected json://[user:password@]host[:port][/path]");
  }
  const method = (parts.query.get("method") || "POST").toUpperCase();
  if (!METHODS.includes(method)) throw fail("expected ?method= POST or PUT");
  const headers: Record<string, string> = {
    "content-type": "application/json",
  };
  const params = new URLSearchParams();
  const extras: Record<string, string> = {};
  for (const [name, value] of parts.query) {
    if (name.startsWith("+") && name.length > 1) headers[name.slice(1)] = value;
    else if (name.startsWith("-") && name.length > 1) {
      params.set(name.slice(1), value);
    } else if (name.startsWith(":") && name.length > 1) {
      extras[name.slice(1)] = value;
    }
  }
  if (parts.user !== undefined) {
    headers.authorization = basicAuth(parts.user, parts.password);
  }
  const badHeader = invalidHeader(headers);
  if (badHeader !== undefined) {
    throw fail(
      `invalid header "+${badHeader}": a name of letters, digits and -, a value without line breaks in Latin-1`,
    );
  }
  const query = params.size > 0 ? `?${params}` : "";
  const url = `${parts.scheme === "jsons" ? "https" : "http"}://${
    hostPort(parts)
  }${path}${query}`;
  // Header and query values often carry an API key.
  const headerValues = [...parts.query]
    .filter(([name]) => name[0] === "+" || name[0] === "-")
    .map(([, value]) => value);
  return {
    scheme: parts.scheme,
    service: "JSON endpoint",
    display,
    secrets: [
      parts.password,
      parts.password && basicCredentials(parts.user ?? "", parts.password),
      ...headerValues,
    ].filter((s): s is string => !!s),
    requests(message: Message): TargetRequest[] {
      return [{
        url,
        method,
        headers,
        body: JSON.stringify({
          version: "1.0",
          title: message.title,
          message: message.body,
          attachments: [],
          type: message.type,
          ...extras,
        }),
      }];
    },
  };
}
