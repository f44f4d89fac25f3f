/**
 * The health check of every HTTP role: `GET /healthz` returns `{"status":"ok"}`.
 *
 * @module
 */
import type { Context } from "hono";

const HEALTHY = '{"status":"ok"}';

/**
 * Handler responding `{"status":"ok"}` with its `Content-Length` (so HEAD, which
 * runs it too, carries it). `createHttpApp` registers it at `/healthz`.
 *
 * @example
 * ```ts
 * import { Hono } from "hono";
 * import { healthCheck } from "./health_check.ts";
 *
 * const app = new Hono().get("/healthz", healthCheck);
 * const response = await app.request("/healthz");
 * await response.json(); // { status: "ok" }
 * ```
 */
export function healthCheck(c: Context): Response {
  return c.body(HEALTHY, 200, {
    "content-type": "application/json",
    "content-length": String(HEALTHY.length),
  });
}
