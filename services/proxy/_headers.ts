/**
 * Header rules of the relay: hop-by-hop headers stay on their own connection.
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

/**
 * Not sent to the remote besides the hop-by-hop ones: `Host` (the remote's own is
 * used), `Expect`, and `Accept-Encoding` (the client negotiates its own codings,
 * then decodes them, as `fetch` does). `Content-Length` goes on: the pooled client
 * frames a streamed body with it (`fetch` chunks it instead).
 */
const NOT_FORWARDED = new Set([
  ...HOP_BY_HOP,
  "host",
  "expect",
  "accept-encoding",
]);

/** Codings `fetch` decodes by itself: the relayed body is no longer encoded. */
const DECODED_BY_FETCH = new Set(["gzip", "x-gzip", "deflate", "br"]);

const ALLOW_ORIGIN = "access-control-allow-origin";
const EXPOSE_HEADERS = "access-control-expose-headers";

/** Header names listed in a `Connection` header (also hop-by-hop). */
function connectionNames(headers: Headers): Set<string> | undefined {
  const value = headers.get("connection");
  if (!value) return undefined;
  return new Set(value.split(",").map((name) => name.trim().toLowerCase()));
}

/** The caller's end-to-end headers, as sent to the remote. */
export function remoteRequestHeaders(headers: Headers): [string, string][] {
  const named = connectionNames(headers);
  const pairs: [string, string][] = [];
  for (const pair of headers) {
    if (!NOT_FORWARDED.has(pair[0]) && !named?.has(pair[0])) pairs.push(pair);
  }
  return pairs;
}

/**
 * Turns the remote's headers, copied into the caller's answer, into what the caller
 * gets: without hop-by-hop headers and the coding the client already decoded, with
 * `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers` (`*`, or the
 * header names when the allowed origin is a single one), so a page can read them.
 * Changes `headers` in place (cheaper than building a copy).
 */
export function prepareCallerHeaders(
  headers: Headers,
  allowOrigin: string,
): void {
  const named = connectionNames(headers);
  for (const name of HOP_BY_HOP) {
    if (headers.has(name)) headers.delete(name);
  }
  if (named) { for (const name of named) headers.delete(name); }
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
