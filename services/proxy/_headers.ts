/**
 * Header rules of the relay: hop-by-hop headers stay on their own connection, cookies
 * stay off the proxy's host, and a remote's redirects can be pointed back at the proxy.
 *
 * Both functions walk the headers once into a list of pairs (copying a `Headers` and
 * deleting from it costs several times more, per request).
 *
 * @module
 */

/** Hop-by-hop headers (RFC 9110 section 7.6.1) and their common non-standard kin. */
const HOP_BY_HOP = [
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
 * Not sent to the remote besides the hop-by-hop ones: `Host` (the remote's own is
 * used), `Expect`, `Accept-Encoding` (the client negotiates its own codings, then
 * decodes them, as `fetch` does), and `Cookie`/`Cookie2`: browsers scope cookies by
 * host, not port, so the caller's cookies may belong to other apps on the proxy's
 * host. `Content-Length` goes on: the pooled client frames a streamed body with it
 * (`fetch` chunks it instead).
 */
const NOT_FORWARDED = new Set([
  ...HOP_BY_HOP,
  "host",
  "expect",
  "accept-encoding",
  "cookie",
  "cookie2",
]);

/**
 * Not passed back to the caller besides the hop-by-hop ones: a remote's cookies would
 * be set on the proxy's host, for every app served there.
 */
const NOT_RETURNED = ["set-cookie", "set-cookie2"];

const NOT_RETURNED_SET = new Set(NOT_RETURNED);

/**
 * Codings the pooled client decodes by itself (see `lib/http1/_decode.ts`): the
 * relayed body is no longer encoded.
 */
const DECODED_BY_CLIENT = new Set(["gzip", "x-gzip", "deflate", "br"]);

/**
 * Codings Deno's `fetch` decodes (those it asks for: `Accept-Encoding: gzip,br`).
 * It passes `deflate` and `x-gzip` bodies on still encoded: their header stays, and
 * the caller decodes them.
 */
const DECODED_BY_FETCH = new Set(["gzip", "br"]);

/** Headers whose URL points the caller somewhere (see `relocate`). */
const LOCATIONS = ["location", "content-location"];

const ALLOW_ORIGIN = "access-control-allow-origin";
const EXPOSE_HEADERS = "access-control-expose-headers";

/**
 * Whether a request says it carries a body (`Transfer-Encoding`, or a
 * `Content-Length` above 0). Deno's `request.body` cannot tell: it is empty rather
 * than `null` for a POST without one, and `null` for a GET with one.
 */
export function declaresBody(headers: Headers): boolean {
  return headers.has("transfer-encoding") ||
    Number(headers.get("content-length") ?? 0) > 0;
}

/** Header names listed in a `Connection` header (also hop-by-hop). */
function connectionNames(headers: Headers): Set<string> | undefined {
  const value = headers.get("connection");
  if (!value) return undefined;
  return new Set(value.split(",").map((name) => name.trim().toLowerCase()));
}

/**
 * The caller's end-to-end headers, as sent to the remote, less its cookies, with `via`
 * (this proxy's entry, RFC 9110 section 7.6.3) added to the caller's `Via`.
 */
export function remoteRequestHeaders(
  headers: Headers,
  via: string,
): [string, string][] {
  // One walk (iteration joins repeated names, so `connection` comes once).
  let connection: string | undefined;
  let received: string | undefined;
  const pairs: [string, string][] = [];
  for (const pair of headers) {
    if (pair[0] === "connection") connection = pair[1];
    else if (pair[0] === "via") received = pair[1];
    else if (!NOT_FORWARDED.has(pair[0])) pairs.push(pair);
  }
  pairs.push(["via", received === undefined ? via : `${received}, ${via}`]);
  if (connection === undefined) return pairs;
  const named = new Set(
    connection.split(",").map((name) => name.trim().toLowerCase()),
  );
  return pairs.filter(([name]) => !named.has(name));
}

/**
 * Turns the remote's headers, copied into the caller's `fetch` answer, into what the
 * caller gets: without hop-by-hop headers, cookies (`Set-Cookie`, `Set-Cookie2`) and
 * the coding `fetch` already decoded, with
 * `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers` (`*`, or the
 * header names when the allowed origin is a single one), so a page can read them,
 * and with `Location` and `Content-Location` passed through `relocate` when given.
 * Changes `headers` in place (cheaper than building a copy).
 */
export function prepareCallerHeaders(
  headers: Headers,
  allowOrigin: string,
  relocate?: (value: string) => string,
): void {
  const named = connectionNames(headers);
  if (headers.has("transfer-encoding")) headers.delete("content-length");
  for (const name of HOP_BY_HOP) {
    if (headers.has(name)) headers.delete(name);
  }
  if (named) { for (const name of named) headers.delete(name); }
  for (const name of NOT_RETURNED) {
    if (headers.has(name)) headers.delete(name);
  }
  if (relocate) {
    for (const name of LOCATIONS) {
      const value = headers.get(name);
      if (value !== null) headers.set(name, relocate(value));
    }
  }
  const coding = headers.get("content-encoding")?.trim().toLowerCase();
  if (coding !== undefined && DECODED_BY_FETCH.has(coding)) {
    headers.delete("content-encoding");
    headers.delete("content-length");
  }
  headers.delete(EXPOSE_HEADERS);
  const exposed = allowOrigin === "*" ? "*" : [...new Set(headers.keys())]
    .filter((name) => !name.startsWith("access-control-")).join(", ");
  headers.set(ALLOW_ORIGIN, allowOrigin);
  if (exposed) headers.set(EXPOSE_HEADERS, exposed);
}

/**
 * {@linkcode prepareCallerHeaders} on header pairs (names in lower case) of the
 * pooled client, for an answer not built yet: the same headers come out (but for the
 * codings that client decodes and `fetch` does not), without a `Headers` object's
 * checks on every lookup.
 */
export function callerHeaderPairs(
  pairs: [string, string][],
  allowOrigin: string,
  relocate?: (value: string) => string,
): [string, string][] {
  let named: Set<string> | undefined;
  let coding: string | undefined;
  let chunked = false;
  for (const [name, value] of pairs) {
    if (name === "transfer-encoding") chunked = true;
    else if (name === "connection") {
      named ??= new Set();
      for (const listed of value.split(",")) {
        named.add(listed.trim().toLowerCase());
      }
    } else if (name === "content-encoding") {
      coding = coding === undefined ? value : `${coding}, ${value}`;
    }
  }
  const decoded = coding !== undefined &&
    DECODED_BY_CLIENT.has(coding.trim().toLowerCase());
  const kept: [string, string][] = [];
  for (const pair of pairs) {
    const name = pair[0];
    if (
      HOP_BY_HOP_SET.has(name) || named?.has(name) || name === EXPOSE_HEADERS ||
      name === ALLOW_ORIGIN || NOT_RETURNED_SET.has(name) ||
      (decoded && (name === "content-encoding" || name === "content-length")) ||
      // A transfer coding frames the body: a length beside it is not the body's.
      (chunked && name === "content-length")
    ) continue;
    kept.push(
      relocate && (name === "location" || name === "content-location")
        ? [name, relocate(pair[1])]
        : pair,
    );
  }
  const exposed = allowOrigin === "*" ? "*" : [
    ...new Set(
      kept.map(([name]) => name).filter((name) =>
        !name.startsWith("access-control-")
      ),
    ),
  ].sort().join(", ");
  kept.push([ALLOW_ORIGIN, allowOrigin]);
  if (exposed) kept.push([EXPOSE_HEADERS, exposed]);
  return kept;
}
