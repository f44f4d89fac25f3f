/**
 * Splits an Apprise URL into its parts the way Apprise reads them: scheme,
 * `user:password@`, host, port, path segments and query options (names lower-cased,
 * values percent-decoded, `+` kept as a plus).
 *
 * @module
 */
import { MASK } from "./target.ts";

/** The parts of an Apprise URL, percent-decoded. */
export interface UrlParts {
  /** Scheme, lower case, without `://`. */
  readonly scheme: string;
  /** User name, when the URL has `user@` or `user:password@`. */
  readonly user?: string;
  /** Password, when the URL has `user:password@`. */
  readonly password?: string;
  /** Host as written (case kept: some services put a token there). */
  readonly host: string;
  /** Port text after the host's colon, not checked (a Telegram token has a colon). */
  readonly port?: string;
  /** Non-empty path segments. */
  readonly path: readonly string[];
  /** Whether the path ends with a slash after a segment. */
  readonly trailingSlash: boolean;
  /** Query options by lower-cased name. */
  readonly query: ReadonlyMap<string, string>;
}

const URL_SHAPE =
  /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(\/[^?#]*)?(?:\?([^#]*))?(?:#.*)?$/i;

/**
 * Returns the parts of `raw`, or `undefined` when it is not `scheme://...` or holds
 * malformed percent-encoding or a blank.
 *
 * @example
 * ```ts
 * parseUrlParts("ntfy://me:pw@host:81/topic?priority=high");
 * // { scheme: "ntfy", user: "me", password: "pw", host: "host", port: "81",
 * //   path: ["topic"], query: Map { "priority" => "high" } }
 * ```
 */
export function parseUrlParts(raw: string): UrlParts | undefined {
  if (/\s/.test(raw)) return undefined;
  const match = URL_SHAPE.exec(raw);
  if (!match) return undefined;
  const [, scheme, authority, pathText = "", queryText = ""] = match;
  try {
    const at = authority!.lastIndexOf("@");
    const userInfo = at < 0 ? undefined : authority!.slice(0, at);
    const hostPort = authority!.slice(at + 1);
    const colon = userInfo?.indexOf(":") ?? -1;
    const user = userInfo === undefined
      ? undefined
      : decode(colon < 0 ? userInfo : userInfo.slice(0, colon));
    const password = userInfo !== undefined && colon >= 0
      ? decode(userInfo.slice(colon + 1))
      : undefined;
    const hostMatch = /^(\[[0-9a-f:.]+\]|[^:]*)(?::(.*))?$/i.exec(hostPort)!;
    const query = new Map<string, string>();
    for (const pair of queryText.split("&")) {
      if (pair === "") continue;
      const equals = pair.indexOf("=");
      const name = decode(equals < 0 ? pair : pair.slice(0, equals));
      const value = equals < 0 ? "" : decode(pair.slice(equals + 1));
      query.set(name.toLowerCase(), value);
    }
    return {
      scheme: scheme!.toLowerCase(),
      user: user || undefined,
      password,
      host: decode(hostMatch[1]!),
      port: hostMatch[2],
      path: pathText.split("/").filter((s) => s !== "").map(decode),
      trailingSlash: /[^/]\/+$/.test(pathText),
      query,
    };
  } catch {
    return undefined;
  }
}

function decode(text: string): string {
  return decodeURIComponent(text);
}

/**
 * `raw` with whatever may be secret masked, for a URL that could not be read: the
 * scheme stays, and so does the host when `keepHost` (a service whose host is a
 * server, not a token); user information, path and query are masked.
 *
 * @example
 * ```ts
 * maskUnreadable("gotify://host/AbC?x=1", true); // "gotify://host/****"
 * ```
 */
export function maskUnreadable(raw: string, keepHost: boolean): string {
  const match = /^([a-z0-9+.-]+):\/\/(?:[^/?#@]*@)?([^/?#]*)(.*)$/i.exec(raw);
  if (!match) return MASK;
  const [, scheme, host, rest] = match;
  const shownHost = keepHost && /^[\w.[\]:-]*$/.test(host!) ? host : MASK;
  return `${scheme}://${raw.includes("@") ? `${MASK}@` : ""}${shownHost}${
    rest ? `/${MASK}` : ""
  }`;
}

/** `host[:port]` as it goes in a URL, brackets kept for IPv6. */
export function hostPort(parts: UrlParts): string {
  return parts.port ? `${parts.host}:${parts.port}` : parts.host;
}

/** Whether `parts.port` is absent or a TCP port number. */
export function validPort(parts: UrlParts): boolean {
  return parts.port === undefined ||
    (/^\d{1,5}$/.test(parts.port) && Number(parts.port) >= 1 &&
      Number(parts.port) <= 65535);
}

/** Whether `host` is an IPv4, bracketed IPv6 or DNS name a server can have. */
export function validHost(host: string): boolean {
  return /^\[[0-9a-f:.]+\]$/i.test(host) ||
    /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i
      .test(host);
}

/** The `user[:****]@` part of a display URL. */
export function displayUserInfo(parts: UrlParts): string {
  if (parts.user === undefined) return "";
  const user = encodeURIComponent(parts.user);
  return parts.password === undefined ? `${user}@` : `${user}:${MASK}@`;
}

/** Base64 of the UTF-8 bytes of `text` (for HTTP Basic authentication). */
export function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary);
}

/** The `Authorization` value of HTTP Basic authentication. */
export function basicAuth(user: string, password = ""): string {
  return `Basic ${basicCredentials(user, password)}`;
}

/**
 * The credentials of HTTP Basic authentication (base64 of `user:password`): a
 * secret as much as the password, should a service echo the header.
 */
export function basicCredentials(user: string, password = ""): string {
  return base64(`${user}:${password}`);
}

/**
 * The name of the first of `headers` that an HTTP request cannot carry (a name
 * with a blank, a value with a line break or a character beyond Latin-1), or
 * `undefined` when all can go.
 *
 * @example
 * ```ts
 * invalidHeader({ "x-click": "https://x.test/" }); // undefined
 * invalidHeader({ "x-tags": "a\nb" }); // "x-tags"
 * ```
 */
export function invalidHeader(
  headers: Readonly<Record<string, string>>,
): string | undefined {
  for (const [name, value] of Object.entries(headers)) {
    try {
      new Headers([[name, value]]);
    } catch {
      return name;
    }
  }
  return undefined;
}
