/**
 * The proxy's request URLs resolved within its routes, the route's added parameters
 * put into the target as it is resolved (the URL the client sends is parsed once,
 * not once more with them), and, with the cache on, a bounded few resolutions kept.
 *
 * @module
 */
import type { AdditionsApplier } from "./apply_additions.ts";
import { type Resolution, resolveTarget } from "./resolve_target.ts";
import type { ProxyRoute } from "./routes.ts";

/** How many URLs' resolutions are kept when asked to remember them. */
const REMEMBERED_URLS = 1024;

/** Options of {@linkcode createResolver}. */
export interface ResolverOptions {
  /** The routes' additions, whose parameters go into each target. @default none */
  additions?: AdditionsApplier;
  /**
   * Keep the resolutions of the last URLs (with the cache on, the same URLs come
   * again and again: this spares a hit a good part of its time). @default false
   */
  remember?: boolean;
}

/**
 * Returns the function resolving a request URL as received within `routes`.
 *
 * @example
 * ```ts
 * import { parseRoutes } from "./routes.ts";
 *
 * const resolve = createResolver(parseRoutes("api=https://example.com/v1"));
 * resolve("http://localhost:8002/api/users").kind; // "target"
 * ```
 */
export function createResolver(
  routes: readonly ProxyRoute[],
  options: ResolverOptions = {},
): (url: string) => Resolution {
  const { additions } = options;
  const addQuery = additions
    ? (route: ProxyRoute, query: string) => {
      const added = additions.of(route.name);
      return added ? additions.query(added, query) : query;
    }
    : undefined;
  if (!options.remember) return (url) => resolveTarget(routes, url, addQuery);
  const resolved = new Map<string, Resolution>();
  return (url) => {
    let resolution = resolved.get(url);
    if (resolution === undefined) {
      resolution = resolveTarget(routes, url, addQuery);
      if (resolved.size >= REMEMBERED_URLS) resolved.clear();
      resolved.set(url, resolution);
    }
    return resolution;
  };
}
