/**
 * A shortcut past Hono for the most frequent request of the `messages` role.
 *
 * @module
 */
import type { Hono } from "hono";
import { HTTPException } from "hono/http-exception";

const JSON_INIT: ResponseInit = {
  headers: { "content-type": "application/json" },
};

/**
 * Makes `app.fetch` (and so `app.request`) answer `GET <itemPrefix><rest>` itself
 * when `read(rest)` returns a JSON text, with the same response as the app's own
 * route: 200 and `content-type: application/json`. `rest` is the raw rest of the
 * URL (it may hold a query string, escapes or slashes): `read` must answer
 * `undefined` unless it names a record. An `HTTPException` thrown by `read` (the
 * busy database's 503) is answered as it is, without a second read. Anything else
 * (other methods, `undefined`, another error) goes to the app unchanged, which
 * answers or logs as usual.
 *
 * Why: for a cached record, Hono's routing, context and response building cost about
 * 1.4 µs of a 1.7 µs read in process (`deno bench`; 0.3 µs left, a bare handler
 * takes 0.2 µs), and most of the JavaScript time under load (`--cpu-prof`).
 */
export function withFastItemReads(
  app: Hono,
  itemPrefix: string,
  read: (rest: string) => string | undefined,
): Hono {
  const appFetch = app.fetch;
  app.fetch = (request, env, executionCtx) => {
    if (request.method === "GET") {
      const body = fastRead(request.url, itemPrefix, read);
      if (body instanceof HTTPException) return body.getResponse();
      if (body !== undefined) return new Response(body, JSON_INIT);
    }
    return appFetch(request, env, executionCtx);
  };
  return app;
}

function fastRead(
  url: string,
  itemPrefix: string,
  read: (rest: string) => string | undefined,
): string | HTTPException | undefined {
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  if (pathStart < 0 || !url.startsWith(itemPrefix, pathStart)) return undefined;
  try {
    return read(url.slice(pathStart + itemPrefix.length));
  } catch (error) {
    if (error instanceof HTTPException) return error;
    return undefined; // the app reads again and reports the failure
  }
}
