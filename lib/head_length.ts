/**
 * The one HEAD rule of every role: a response to HEAD carries the `Content-Length`
 * the response to GET would, as RFC 9110 (section 9.3.2) asks.
 *
 * Hono responds to HEAD by running the GET route (which sees HEAD) and dropping its
 * body, and Deno then sends `Content-Length: 0`. {@linkcode measuredHead} measures
 * the body the route gave; {@linkcode headLength} applies it to every route of an
 * app. A route that must stay on Hono's one-handler path (a middleware takes it
 * off) calls {@linkcode measuredHead} itself, or sets `Content-Length` itself.
 *
 * @module
 */
import type { MiddlewareHandler } from "hono";

/**
 * `response` to a request of `method`, with its `Content-Length` when the method is
 * HEAD and the response has a body of unknown length (the body is measured on a
 * copy; the route runs once). Other responses are returned as they are.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { measuredHead } from "./head_length.ts";
 *
 * const app = new Hono();
 * app.all("/data", (c) => measuredHead(c.req.method, c.json({ message: "no" }, 405)));
 * const head = await app.request("/data", { method: "HEAD" });
 * head.headers.get("content-length"); // "16"
 * ```
 */
export async function measuredHead(
  method: string,
  response: Response,
): Promise<Response> {
  if (
    method !== "HEAD" || response.body === null ||
    response.headers.has("content-length")
  ) {
    return response;
  }
  const length = (await response.clone().arrayBuffer()).byteLength;
  response.headers.set("content-length", String(length));
  return response;
}

/**
 * Middleware giving every response to HEAD the length of the GET response (see
 * {@linkcode measuredHead}). It takes a route with a single handler off Hono's
 * one-handler path: apps measured against a bare `Deno.serve` do without it.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { headLength } from "./head_length.ts";
 *
 * const app = new Hono();
 * app.use(headLength());
 * app.get("/text", (c) => c.text("hello"));
 * const head = await app.request("/text", { method: "HEAD" });
 * head.headers.get("content-length"); // "5"
 * ```
 */
export function headLength(): MiddlewareHandler {
  return async function headLengthMiddleware(c, next) {
    await next();
    if (c.req.method === "HEAD") await measuredHead("HEAD", c.res);
  };
}
