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
 * used), `Content-Length` (the body is streamed), `Expect`, and `Accept-Encoding`
 * (`fetch` negotiates its own codings, then decodes them).
 */
const NOT_FORWARDED = new Set([
  ...HOP_BY_HOP,
  "host",
  "content-length",
  "expect",
  "accept-encoding",
]);

const NOT_RETURNED = new Set(HOP_BY_HOP);

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
 * The remote's end-to-end headers (less the coding `fetch` already decoded), plus
 * `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers` listing them, so
 * a page can read them.
 */
export function callerResponseHeaders(
  headers: Headers,
  allowOrigin: string,
): [string, string][] {
  const named = connectionNames(headers);
  const coding = headers.get("content-encoding")?.trim().toLowerCase();
  const decoded = coding !== undefined && DECODED_BY_FETCH.has(coding);
  const pairs: [string, string][] = [];
  const exposed: string[] = [];
  for (const pair of headers) {
    const name = pair[0];
    if (NOT_RETURNED.has(name) || named?.has(name)) continue;
    if (decoded && (name === "content-encoding" || name === "content-length")) {
      continue;
    }
    if (name === ALLOW_ORIGIN || name === EXPOSE_HEADERS) continue;
    pairs.push(pair);
    if (!name.startsWith("access-control-") && exposed.at(-1) !== name) {
      exposed.push(name);
    }
  }
  pairs.push([ALLOW_ORIGIN, allowOrigin]);
  if (exposed.length > 0) pairs.push([EXPOSE_HEADERS, exposed.join(", ")]);
  return pairs;
}
