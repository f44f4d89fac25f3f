/**
 * What every HTTP role returns a request no route took: 405 with `Allow` for
 * another method on a path that has routes, else 404, both as `{"message": ...}`.
 *
 * @module
 */
import type { Hono, NotFoundHandler } from "hono";
import { measuredHead } from "./head_length.ts";
import { methodNotAllowed } from "./method_not_allowed.ts";

/**
 * The methods a path allows, or `undefined` to leave the path to the route table.
 */
export type MethodsOf = (path: string) => readonly string[] | undefined;

/**
 * Returns the not-found handler (`app.notFound`) of `app`: 405 with `Allow` (see
 * `methodNotAllowed`) when the path allows other methods, else 404
 * `{"message": "Not found"}`, each with its length when it responds to HEAD. The
 * methods are those of the routes registered on exactly the path (GET implies
 * HEAD), unless `methodsOf` names them: for a path matched by a parameter
 * (`/items/:id`), or one whose middleware is registered for more methods than its
 * routes serve. `createHttpApp` installs it without `methodsOf`.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { unrouted } from "./unrouted.ts";
 *
 * const app = new Hono();
 * app.get("/items/:id", (c) => c.json({ id: c.req.param("id") }));
 * app.notFound(unrouted(app, (path) =>
 *   path.startsWith("/items/") ? ["GET", "HEAD"] : undefined));
 * const response = await app.request("/items/1", { method: "PUT" });
 * response.status; // 405
 * response.headers.get("allow"); // "GET, HEAD"
 * ```
 */
export function unrouted(app: Hono, methodsOf?: MethodsOf): NotFoundHandler {
  return function unroutedHandler(c) {
    const path = c.req.path;
    const allowed = methodsOf?.(path) ?? routedMethods(app, path);
    return measuredHead(
      c.req.method,
      allowed.length === 0
        ? c.json({ message: "Not found" }, 404)
        : methodNotAllowed(c, allowed),
    );
  };
}

/** The methods routed on exactly `path` (GET implies HEAD); middleware aside. */
function routedMethods(app: Hono, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.path !== path || route.method === "ALL") continue;
    methods.add(route.method);
    if (route.method === "GET") methods.add("HEAD");
  }
  return [...methods];
}
