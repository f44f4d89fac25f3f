/**
 * The one 405 response of every role.
 *
 * @module
 */
import type { Context } from "hono";

/** Options of {@linkcode methodNotAllowed}. */
export interface MethodNotAllowedOptions {
  /**
   * What to do instead, after the colon of the message.
   * @default "use " and the allowed methods
   */
  hint?: string;
  /** Respond with an empty body instead of `{"message": ...}` (the proxy does). @default false */
  emptyBody?: boolean;
}

/**
 * Responds 405 with `Allow: <allow>` and the body
 * `{"message": "Method <method> not allowed: use <allow>"}`. Headers already set on
 * the context (by middleware) are kept.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { methodNotAllowed } from "./method_not_allowed.ts";
 *
 * const app = new Hono();
 * app.all("/data", (c) =>
 *   c.req.method === "GET" ? c.text("ok") : methodNotAllowed(c, ["GET"]));
 * const response = await app.request("/data", { method: "POST" });
 * response.status; // 405
 * response.headers.get("allow"); // "GET"
 * ```
 */
export function methodNotAllowed(
  c: Context,
  allow: readonly string[],
  options: MethodNotAllowedOptions = {},
): Response {
  const allowed = allow.join(", ");
  if (options.emptyBody) return c.body(null, 405, { allow: allowed });
  const hint = options.hint ?? `use ${allowed}`;
  return c.json(
    { message: `Method ${c.req.method} not allowed: ${hint}` },
    405,
    { allow: allowed },
  );
}
