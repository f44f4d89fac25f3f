import assert from "node:assert/strict";
import { HTTPException } from "hono/http-exception";
import { createHttpApp } from "./http.ts";
import { createMemoryLog } from "./_test_memory_log.ts";

Deno.test("createHttpApp()", async (t) => {
  const log = createMemoryLog();
  const app = createHttpApp({ log });
  app.get("/teapot", () => {
    throw new HTTPException(418, { message: "I am a teapot" });
  });
  app.get("/empty", () => {
    throw new HTTPException(404, { res: new Response(null, { status: 404 }) });
  });
  app.get("/boom", () => {
    throw new Error("database on fire");
  });

  await t.step("responds to GET /healthz", async () => {
    const response = await app.request("/healthz");
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { status: "ok" });
  });

  await t.step("maps HTTPException to a JSON message", async () => {
    const response = await app.request("/teapot");
    assert.equal(response.status, 418);
    assert.deepEqual(await response.json(), { message: "I am a teapot" });
  });

  await t.step("keeps a response given to HTTPException", async () => {
    const response = await app.request("/empty");
    assert.equal(response.status, 404);
    assert.equal(await response.text(), "");
  });

  await t.step(
    "responds to unknown paths 404 with a JSON message",
    async () => {
      const response = await app.request("/nowhere");
      assert.equal(response.status, 404);
      assert.deepEqual(await response.json(), { message: "Not found" });
    },
  );

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
});

Deno.test("createHttpApp() returns 405 with Allow for another method on a routed path", async () => {
  const app = createHttpApp({ log: createMemoryLog() });
  app.get("/items", (c) => c.json([]));
  app.post("/items", (c) => c.json({}, 201));
  const put = await app.request("/items", { method: "PUT" });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get("allow"), "GET, HEAD, POST");
  assert.deepEqual(await put.json(), {
    message: "Method PUT not allowed: use GET, HEAD, POST",
  });
  const health = await app.request("/healthz", { method: "POST" });
  assert.equal(health.status, 405);
  assert.equal(health.headers.get("allow"), "GET, HEAD");
  await health.body?.cancel();
  const missing = await app.request("/other", { method: "PUT" });
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
});

Deno.test("createHttpApp() responds to HEAD to its own responses with their length", async () => {
  const app = createHttpApp({ log: createMemoryLog() });
  app.get("/boom", () => {
    throw new Error("database on fire");
  });
  for (
    const [path, status] of [["/healthz", 200], ["/nowhere", 404], [
      "/boom",
      500,
    ]] as const
  ) {
    const get = await app.request(path);
    const length = (await get.arrayBuffer()).byteLength;
    const head = await app.request(path, { method: "HEAD" });
    assert.equal(head.status, status, path);
    assert.equal(head.headers.get("content-length"), String(length), path);
  }
});
