/**
 * Where a remote's `Location` or `Content-Location` points, seen from the caller: a
 * URL within the route's base URL becomes the proxy's own path for it, so a browser
 * that follows a redirect stays on the proxy.
 *
 * @module
 */
import type { ProxyRoute } from "./routes.ts";

/**
 * Returns the proxy's path for `value` (`/{name}/{rest}`, query and fragment kept)
 * when `value`, resolved against `target` (the URL that was called), has the route's
 * origin and lies within its path prefix; `value` as it is otherwise. The path has no
 * scheme or host, so it works by whatever host the caller reaches the proxy.
 *
 * @example
 * ```ts
 * const [route] = parseRoutes("api=https://remote.example/base");
 * const target = "https://remote.example/base/old";
 * proxiedLocation("/base/new?page=2", route!, target); // "/api/new?page=2"
 * proxiedLocation("https://elsewhere.example/", route!, target); // unchanged
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
  if (url.origin !== route.origin) return value;
  const path = url.pathname;
  const within = route.prefix === "" || path === route.prefix ||
    path.startsWith(`${route.prefix}/`);
  if (!within) return value;
  return `/${route.name}${
    path.slice(route.prefix.length)
  }${url.search}${url.hash}`;
}
