/**
 * Where an upstream's `Location` or `Content-Location` points, seen from the client: a
 * URL within the route's base URL becomes the proxy's own path for it, so a browser
 * that follows a redirect stays on the proxy.
 *
 * @module
 */
import { resolveTarget } from "./resolve_target.ts";
import type { ProxyRoute } from "./routes.ts";

/**
 * Returns the proxy's path for `value` (`/{name}/{rest}`, query and fragment kept)
 * when `value`, resolved against `target` (the URL that was called), has the route's
 * origin, lies within its path prefix, and is where the proxy sends that path (a
 * path the proxy refuses, or maps elsewhere, such as `/base` of a base registered as
 * `/base/`, is never given: a browser would loop or fail). Otherwise `value` as it
 * is, made absolute when it was relative (a relative value is the upstream's, and the
 * browser would resolve it against the proxy). The proxy's path has no scheme or
 * host, so it works by whatever host the client reaches the proxy.
 *
 * @example
 * ```ts
 * import { parseRoutes } from "./routes.ts";
 *
 * const [route] = parseRoutes("api=https://upstream.example/base");
 * const target = "https://upstream.example/base/old";
 * proxiedLocation("/base/new?page=2", route!, target); // "/api/new?page=2"
 * proxiedLocation("/login", route!, target); // "https://upstream.example/login"
 * ```
 */
export function proxiedLocation(
  value: string,
  route: ProxyRoute,
  target: string | URL,
): string {
  let url: URL;
  try {
    url = new URL(value, target);
  } catch {
    return value;
  }
  const proxied = proxyPath(url, route);
  if (proxied !== undefined) return proxied;
  return URL.canParse(value) ? value : url.href;
}

/** The proxy's path that leads to exactly `url`, if there is one. */
function proxyPath(url: URL, route: ProxyRoute): string | undefined {
  if (url.origin !== route.origin) return undefined;
  const path = url.pathname;
  const within = route.prefix === "" || path === route.prefix ||
    path.startsWith(`${route.prefix}/`);
  if (!within) return undefined;
  const proxied = `/${route.name}${
    path.slice(route.prefix.length)
  }${url.search}`;
  const back = resolveTarget([route], proxied);
  // (An empty `?` or `#` is dropped: the same resource.)
  const called = `${url.origin}${path}${url.search}`;
  if (back.kind !== "target" || back.url !== called) return undefined;
  return `${proxied}${url.hash}`;
}
