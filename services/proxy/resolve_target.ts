/**
 * Maps a request URL onto a registered upstream base URL, refusing anything that could
 * leave the registered origin and path prefix.
 *
 * @module
 */
import type { ProxyRoute } from "./routes.ts";

/** Outcome of {@linkcode resolveTarget}. */
export type Resolution =
  | {
    readonly kind: "target";
    readonly route: ProxyRoute;
    readonly url: string;
    /** `url` parsed (the client takes it as is, rather than parsing it again). */
    readonly parsed: URL;
  }
  | { readonly kind: "unmatched" }
  | {
    readonly kind: "rejected";
    readonly route: ProxyRoute;
    /** The path as received. */
    readonly path: string;
    /** Why it was refused, e.g. `it holds a . or .. segment`. */
    readonly reason: string;
  };

/** How many layers of percent-encoding are unwrapped when looking for escapes. */
const DECODE_LAYERS = 3;

/**
 * Encoded bytes that start an overlong UTF-8 form (which old servers decode as the
 * character, "." included) or a lead byte no valid UTF-8 has: C0 and C1, E0 80-9F,
 * F0 80-8F, and F5 to FF (the old 5- and 6-byte forms).
 */
const OVERLONG_UTF8 = /%c[01]%|%e0%[89]|%f0%8|%f[5-9a-f]/i;

/**
 * Resolves the target of a request.
 *
 * `url` is the request URL exactly as received (`request.url` of `Deno.serve` keeps the
 * raw path, while `new URL()` would already have resolved `..`). The first path segment
 * must equal a registered name as a whole; only that segment is removed, the rest of
 * the path and the query string are appended to the base URL. The rest of the path is
 * rejected when it holds, raw or percent-encoded (up to three layers), a `.` or `..`
 * segment, an encoded slash or backslash, a backslash, an `@`, an empty segment (`//`),
 * a NUL, an overlong UTF-8 sequence, or malformed percent-encoding; and the joined URL
 * must keep the base URL's origin and path prefix. `addQuery`, when given, turns the
 * raw query (`""` or `?…`) into the one sent (a route's added parameters): the
 * target is then parsed once, with them.
 *
 * @example
 * ```ts
 * import { parseRoutes } from "./routes.ts";
 *
 * const routes = parseRoutes("api=https://example.com/v1");
 * resolveTarget(routes, "http://localhost:8002/api/users?page=2");
 * // { kind: "target", route, url: "https://example.com/v1/users?page=2" }
 * ```
 */
export function resolveTarget(
  routes: readonly ProxyRoute[],
  url: string,
  addQuery?: (route: ProxyRoute, query: string) => string,
): Resolution {
  const { path, query } = splitUrl(url);
  if (!path.startsWith("/")) return { kind: "unmatched" };
  // A backslash or an encoded slash ends the name too (some servers read them as
  // "/"), so "/api\\..\\x" is refused as hostile rather than left unmatched.
  const end = path.slice(1).search(/[/\\]|%2f|%5c/i) + 1;
  const name = end < 1 ? path.slice(1) : path.slice(1, end);
  const route = routes.find((candidate) => candidate.name === name);
  if (!route) return { kind: "unmatched" };
  const rest = end < 1 ? "" : path.slice(end);
  const problem = escapeProblem(rest);
  if (problem) return { kind: "rejected", route, path, reason: problem };
  // Nothing after the name: the base URL as registered (a trailing slash kept).
  const joined = `${route.origin}${
    rest === "" ? new URL(route.base).pathname : route.prefix + rest
  }${addQuery ? addQuery(route, query) : query}`;
  const parsed = keptBase(route, joined);
  if (!parsed) {
    const reason = "it leaves the registered base URL";
    return { kind: "rejected", route, path, reason };
  }
  return { kind: "target", route, url: joined, parsed };
}

/** Splits a raw URL (or origin-form target) into its path and `?query`, no fragment. */
function splitUrl(url: string): { path: string; query: string } {
  let target = url;
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(url);
  if (scheme) {
    const afterAuthority = url.slice(scheme[0].length).search(/[/?#]/);
    target = afterAuthority < 0
      ? "/"
      : url.slice(scheme[0].length + afterAuthority);
  }
  const hash = target.indexOf("#");
  if (hash >= 0) target = target.slice(0, hash);
  const question = target.indexOf("?");
  return question < 0
    ? { path: target, query: "" }
    : { path: target.slice(0, question), query: target.slice(question) };
}

/**
 * A rest of a path that cannot escape: segments of unreserved characters (RFC 3986
 * 2.3) not starting with a dot, an optional trailing slash. Most paths are such;
 * they skip the checks below.
 */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*\/?$/;

/** Returns why the rest of a path could escape the base path, or `undefined`. */
function escapeProblem(rest: string): string | undefined {
  if (PLAIN_PATH.test(rest)) return undefined;
  let layer = rest;
  for (let depth = 0; depth <= DECODE_LAYERS; depth++) {
    if (/%(2f|5c)/i.test(layer)) {
      return "it holds an encoded slash or backslash";
    }
    if (layer.includes("\\")) return "it holds a backslash";
    if (/%00|\0/.test(layer)) return "it holds a NUL byte (%00)";
    // Old servers decode an overlong form as the character: %c0%ae as ".".
    if (OVERLONG_UTF8.test(layer)) {
      return "it holds an overlong or invalid UTF-8 sequence";
    }
    if (layer.includes("@")) return "it holds an @";
    if (layer.includes("//")) return "it holds an empty segment (//)";
    if (layer.split("/").some(isDotSegment)) {
      return "it holds a . or .. segment";
    }
    if (!layer.includes("%")) return undefined;
    const decoded = percentDecode(layer);
    if (decoded === undefined) return "it holds malformed percent-encoding";
    if (decoded === layer) return undefined;
    layer = decoded;
  }
  return "it is percent-encoded too many times";
}

/** `.` and `..`, also with a `;parameter` some servers strip (`..;/`). */
function isDotSegment(segment: string): boolean {
  // URL parsers drop tabs and newlines, so ".\t." would become "..".
  const bare = segment.split(";")[0]?.replace(/[\t\n\r]/g, "");
  return bare === "." || bare === "..";
}

/** Decodes `%XX` runs as UTF-8 (lossy); `undefined` when a `%` starts no `%XX`. */
function percentDecode(text: string): string | undefined {
  if (/%(?![0-9a-f]{2})/i.test(text)) return undefined;
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    const bytes = run.slice(1).split("%").map((hex) => parseInt(hex, 16));
    return new TextDecoder().decode(new Uint8Array(bytes));
  });
}

/** The joined URL parsed, if it still has the route's origin and path prefix. */
function keptBase(route: ProxyRoute, joined: string): URL | undefined {
  let parsed: URL;
  try {
    parsed = new URL(joined);
  } catch {
    return undefined;
  }
  if (parsed.origin !== route.origin) return undefined;
  const path = parsed.pathname;
  const kept = route.prefix === "" ||
    path === route.prefix ||
    path.startsWith(`${route.prefix}/`);
  return kept ? parsed : undefined;
}
