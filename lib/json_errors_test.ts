import assert from "node:assert/strict";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { jsonErrors } from "./json_errors.ts";
import { createMemoryLog } from "./_test_memory_log.ts";

Deno.test("jsonErrors()", async (t) => {
  const log = createMemoryLog();
  const app = new Hono().onError(jsonErrors(log));
  app.get("/teapot", () => {
    throw new HTTPException(418, { message: "I am a teapot" });
  });
  app.get("/bare", () => {
    throw new HTTPException(403);
  });
  app.get("/empty", () => {
    throw new HTTPException(404, { res: new Response(null, { status: 404 }) });
  });
  app.get("/boom", () => {
    throw new Error("database on fire");
  });

  await t.step("returns an HTTPException's message as JSON", async () => {
    const response = await app.request("/teapot");
    assert.equal(response.status, 418);
    assert.deepEqual(await response.json(), { message: "I am a teapot" });
  });

  await t.step("returns the status's text without a message", async () => {
    const response = await app.request("/bare");
    assert.deepEqual(await response.json(), { message: "Forbidden" });
  });

  await t.step("keeps a response given to HTTPException", async () => {
    const response = await app.request("/empty");
    assert.equal(response.status, 404);
    assert.equal(await response.text(), "");
  });

  await t.step(
    "logs an unexpected error and returns a generic 500",
    async () => {
      const response = await app.request("/boom");
      assert.equal(response.status, 500);
      assert.deepEqual(await response.json(), {
        message: "Internal server error",
      });
      assert.deepEqual(log.at("ERROR"), ["GET /boom failed: database on fire"]);
    },
  );

  await t.step("gives its response to HEAD the length of GET's", async () => {
    const response = await app.request("/boom", { method: "HEAD" });
    assert.equal(response.status, 500);
    assert.equal(response.headers.get("content-length"), "35");
  });
});
