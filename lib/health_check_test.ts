import assert from "node:assert/strict";
import { Hono } from "hono";
import { healthCheck } from "./health_check.ts";

Deno.test("healthCheck() returns {status: ok} with its length, to HEAD too", async () => {
  const app = new Hono().get("/healthz", healthCheck);
  const get = await app.request("/healthz");
  assert.equal(get.status, 200);
  assert.equal(get.headers.get("content-type"), "application/json");
  assert.deepEqual(await get.json(), { status: "ok" });
  const head = await app.request("/healthz", { method: "HEAD" });
  assert.equal(head.headers.get("content-length"), "15");
  assert.equal(head.body, null);
});
