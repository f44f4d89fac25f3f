/**
 * Header rules of the relay: hop-by-hop headers stay on their own connection, cookies
 * stay off the proxy's host, and an upstream's redirects can be pointed back at the proxy.
 *
 * Both walk the headers once into a list of pairs (copying a `Headers` and
 * deleting from it costs several times more, per request).
 *
 * @module
 */
import { corsPairs, setByProxy } from "./cors.ts";

/** Hop-by-hop headers (RFC 9110 section 7.6.1) and their common non-standard kin. */
export const HOP_BY_HOP: readonly string[] = [
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

const HOP_BY_HOP_SET = new Set(HOP_BY_HOP);

/**
 * Never sent to the upstream besides the hop-by-hop ones: `Host` (the upstream's own
 * is used), `Expect` and `Accept-Encoding` (the client negotiates its own codings,
 * then decodes them, as `fetch` does). `Content-Length` goes on: the pooled client
 * frames a streamed body with it (`fetch` chunks it instead).
 */
const MANAGED = [...HOP_BY_HOP, "host", "expect", "accept-encoding"];

/**
 * The client headers not forwarded by default (`PROXY_REMOVE_HEADERS`):
 * `Cookie`/`Cookie2`, since browsers scope cookies by host, not port, so the client's
 * cookies may belong to other apps on the proxy's host.
 */
export const REMOVED_BY_DEFAULT: readonly string[] = ["cookie", "cookie2"];

/**
 * The set of header names (lower case) not sent to the upstream: the managed ones
 * and `removed`.
 *
 * @example
 * ```ts
 * notForwarded(["x-debug"]).has("x-debug"); // true
 * ```
 */
export function notForwarded(
  removed: readonly string[] = REMOVED_BY_DEFAULT,
): ReadonlySet<string> {
  return new Set([...MANAGED, ...removed]);
}

const NOT_FORWARDED = notForwarded();

/**
 * Not passed back to the client besides the hop-by-hop ones: an upstream's cookies would
 * be set on the proxy's host, for every app served there.
 */
const NOT_RETURNED = ["set-cookie", "set-cookie2"];

const NOT_RETURNED_SET = new Set(NOT_RETURNED);

/**
 * Whether a request says it carries a body (`Transfer-Encoding`, or a
 * `Content-Length` above 0). Deno's `request.body` cannot tell: it is empty rather
 * than `null` for a POST without one, and `null` for a GET with one.
 */
export function declaresBody(headers: Headers): boolean {
  return headers.has("transfer-encoding") ||
    Number(headers.get("content-length") ?? 0) > 0;
}

/**
 * The client's end-to-end headers, as sent to the upstream, less `removed`
 * ({@linkcode notForwarded}: its cookies by default), with `via` (this proxy's entry,
 * RFC 9110 section 7.6.3) added to the client's `Via`.
 */
export function upstreamRequestHeaders(
  headers: Headers,
  via: string,
  removed: ReadonlySet<string> = NOT_FORWARDED,
): [string, string][] {
  // One walk (iteration joins repeated names, so `connection` comes once).
  let connection: string | undefined;
  let received: string | undefined;
  const pairs: [string, string][] = [];
  for (const pair of headers) {
    if (pair[0] === "connection") connection = pair[1];
    else if (pair[0] === "via") received = pair[1];
    else if (!removed.has(pair[0])) pairs.push(pair);
  }
  pairs.push(["via", received === undefined ? via : `${received}, ${via}`]);
  if (connection === undefined) return pairs;
  const named = new Set(
    connection.split(",").map((name) => name.trim().toLowerCase()),
  );
  return pairs.filter(([name]) => !named.has(name));
}

/**
 * The upstream's header pairs (names in lower case, as an upstream request returns them)
 * as the client gets them: without hop-by-hop headers (and those its `Connection`
 * names), cookies (`Set-Cookie`, `Set-Cookie2`), a `Content-Length` beside a
 * transfer coding, and, when the body was `decoded` on the way, its
 * `Content-Encoding` and `Content-Length`; with `Access-Control-Allow-Origin` and
 * `Access-Control-Expose-Headers` (`*`, or the header names when the allowed origin
 * is a single one), so a page can read them, and with `Location` and
 * `Content-Location` passed through `relocate` when given. The one place these
 * rules are written, whichever transport called the upstream.
 */
export function clientHeaderPairs(
  pairs: [string, string][],
  allowOrigin: string,
  relocate?: (value: string) => string,
  decoded = false,
): [string, string][] {
  let named: Set<string> | undefined;
  let chunked = false;
  for (const [name, value] of pairs) {
    if (name === "transfer-encoding") chunked = true;
    else if (name === "connection") {
      named ??= new Set();
      for (const listed of value.split(",")) {
        named.add(listed.trim().toLowerCase());
      }
    }
  }
  const kept: [string, string][] = [];
  for (const pair of pairs) {
    const name = pair[0];
    if (
      HOP_BY_HOP_SET.has(name) || named?.has(name) || setByProxy(name) ||
      NOT_RETURNED_SET.has(name) ||
      (decoded && (name === "content-encoding" || name === "content-length")) ||
      // A transfer coding frames the body: a length beside it is not the body's.
      (chunked && name === "content-length")
    ) continue;
    kept.push(
      // Headers whose URL points the client somewhere.
      relocate && (name === "location" || name === "content-location")
        ? [name, relocate(pair[1])]
        : pair,
    );
  }
  kept.push(...corsPairs(kept, allowOrigin));
  return kept;
}
