/**
 * Maps a request URL onto a registered upstream base URL, refusing anything that could
 * leave the registered origin and path prefix.
 *
 * @module
 */
import { escapeProblem, PLAIN_PATH } from "./_escape_problem.ts";
import type { ProxyRoute } from "./routes.ts";

/** Outcome of {@linkcode resolveTarget}. */
export type Resolution =
  | {
    readonly kind: "target";
    readonly route: ProxyRoute;
    /**
     * The target URL, with the route's added query parameters: these can be
     * secrets (an API key), so never log it as is (mask its query first).
     */
    readonly url: string;
    /**
     * `url` parsed (the client takes it as is, rather than parsing it again). It
     * holds the route's added query parameters too: never log it as is.
     */
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
  // Most paths are plain: they skip the full checks (which accept all of them).
  const problem = PLAIN_PATH.test(rest) ? undefined : escapeProblem(rest);
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
