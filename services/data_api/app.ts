/**
 * The data API: `GET /data` returns 20 contacts to a client with the valid bearer token.
 *
 * @module
 */
import type { Hono } from "hono";
import { createBearerCheck } from "../../lib/bearer.ts";
import { measuredHead } from "../../lib/head_length.ts";
import { createHttpApp } from "../../lib/http.ts";
import type { Log } from "../../lib/log.ts";
import { methodNotAllowed } from "../../lib/method_not_allowed.ts";
import { httpMetrics } from "../../lib/metrics/http_metrics.ts";
import type { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { readyzHandler } from "../../lib/readyz.ts";
import { createContactsJson, type Random } from "./contacts.ts";

/** The 401 body, byte for byte as the contract states (`docs/data-api.md#contract`). */
export const NOT_VALID_TOKEN_BODY = '{"message": "Not valid token"}';

/** Dependencies of {@linkcode createDataApiApp}. */
export interface DataApiAppOptions {
  /** The valid bearer token. */
  token: string;
  /** Where unexpected errors are logged. */
  log: Log;
  /** Source of randomness for the phone numbers. @default Math.random */
  random?: Random;
  /** The role's metrics: every request counted and timed. @default none */
  metrics?: MetricsRegistry;
}

const JSON_TYPE = { "content-type": "application/json; charset=UTF-8" };

/**
 * Builds the data API app.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 *
 * const app = createDataApiApp({ token: "s3cret", log: createLog("data-api") });
 * await app.request("/data", { headers: { Authorization: "Bearer s3cret" } });
 * ```
 */
export function createDataApiApp(options: DataApiAppOptions): Hono {
  // Exactly `Bearer <token>` (docs/decisions.md says why).
  const isValid = createBearerCheck(options.token, "exact");
  const contactsJson = createContactsJson(options.random ?? Math.random);
  // No `headLength()` middleware: it would take `/data` off Hono's one-handler
  // path. `/data` responds to HEAD with 405, measured in the route.
  const app = createHttpApp({ log: options.log });
  if (options.metrics) app.use(httpMetrics(options.metrics));
  // Ready once started: it needs nothing but itself.
  app.get("/readyz", readyzHandler(() => undefined));
  // One route for every method: Hono responds to HEAD through GET routes, and HEAD is
  // not in `Allow: GET` either. The checks stay in this one handler (no middleware)
  // because the route's speed is measured against a bare `Deno.serve`.
  app.all("/data", (c) => {
    if (c.req.method !== "GET") {
      return measuredHead(c.req.method, methodNotAllowed(c, ["GET"]));
    }
    if (!isValid(c.req.header("authorization"))) {
      return new Response(NOT_VALID_TOKEN_BODY, {
        status: 401,
        headers: { ...JSON_TYPE, "www-authenticate": "Bearer" },
      });
    }
    return new Response(contactsJson(), {
      headers: { ...JSON_TYPE, "cache-control": "no-store" },
    });
  });
  return app;
}
