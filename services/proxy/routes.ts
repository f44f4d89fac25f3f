/**
 * Proxy registrations: `PROXY_ROUTES=name=https://upstream/base,other=http://host:8080/api`
 * parsed at the edge into a typed, frozen list.
 *
 * @module
 */
import { custom, type Setting } from "../../lib/settings.ts";

/** One registration: a first path segment and the upstream base URL it maps to. */
export interface ProxyRoute {
  /** The whole first path segment that selects this registration. */
  readonly name: string;
  /** The upstream base URL as registered. */
  readonly base: string;
  /** Scheme, host and port of the base URL, e.g. `https://upstream:8443`. */
  readonly origin: string;
  /** Path of the base URL without its trailing slash (`""` for the root). */
  readonly prefix: string;
}

const NAME = /^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/;

/**
 * Parses one registration list. Throws an `Error` whose message lists every problem
 * (for `parseSettings` to prefix with the variable name).
 *
 * @example
 * ```ts
 * parseRoutes("api=https://example.com/v1");
 * // [{ name: "api", base: "https://example.com/v1", origin: "https://example.com", prefix: "/v1" }]
 * ```
 */
export function parseRoutes(raw: string): readonly ProxyRoute[] {
  const problems: string[] = [];
  const routes: ProxyRoute[] = [];
  const entries = raw.split(",").map((entry) => entry.trim()).filter(Boolean);
  if (entries.length === 0) {
    throw new Error("expected at least one name=URL entry");
  }
  for (const entry of entries) {
    const equals = entry.indexOf("=");
    if (equals < 0) {
      problems.push(`entry "${entry}" is not name=URL`);
      continue;
    }
    const name = entry.slice(0, equals).trim();
    const base = entry.slice(equals + 1).trim();
    if (!NAME.test(name)) {
      problems.push(
        `name "${name}" in "${entry}" must be one path segment of letters, digits or - . _ ~ (not starting with a dot)`,
      );
      continue;
    }
    if (routes.some((route) => route.name === name)) {
      problems.push(`name "${name}" is registered twice`);
      continue;
    }
    const parsed = parseBase(base);
    if (typeof parsed === "string") {
      // A URL with credentials is not quoted: secrets stay out of messages.
      const shown = parsed.startsWith("must not carry") ? "" : ` "${base}"`;
      problems.push(`URL${shown} of "${name}" ${parsed}`);
      continue;
    }
    routes.push(Object.freeze({ name, base, ...parsed }));
  }
  if (problems.length > 0) throw new Error(problems.join("; "));
  return Object.freeze(routes);
}

/** Returns the origin and prefix of a base URL, or what is wrong with it. */
function parseBase(base: string): { origin: string; prefix: string } | string {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    return "is not an absolute http(s) URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return "is not an absolute http(s) URL";
  }
  if (url.username || url.password) {
    return "must not carry credentials (the proxy adds none)";
  }
  if (url.search || url.hash || base.includes("?") || base.includes("#")) {
    return "must not have a query string or fragment";
  }
  return { origin: url.origin, prefix: url.pathname.replace(/\/+$/, "") };
}

/**
 * The `PROXY_ROUTES` setting: required, a comma-separated list of `name=URL`.
 *
 * @example
 * ```ts
 * const schema = { PROXY_ROUTES: proxyRoutes({ description: "Registrations" }) };
 * ```
 */
export function proxyRoutes(
  options: { description: string },
): Setting<readonly ProxyRoute[]> {
  // Not a secret as such, but a rejected base URL may carry credentials: keep the
  // raw value out of messages (the problems quote the harmless parts).
  return custom(
    { description: options.description, secret: true },
    parseRoutes,
  );
}
