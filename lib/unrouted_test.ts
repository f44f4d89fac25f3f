import assert from "node:assert/strict";
import { Hono } from "hono";
import { unrouted } from "./unrouted.ts";

Deno.test("unrouted() returns 405 with Allow for another method on a routed path, else 404", async () => {
  const app = new Hono();
  app.get("/items", (c) => c.json([]));
  app.post("/items", (c) => c.json({}, 201));
  app.notFound(unrouted(app));
  const put = await app.request("/items", { method: "PUT" });
  assert.equal(put.status, 405);
  assert.equal(put.headers.get("allow"), "GET, HEAD, POST");
  assert.deepEqual(await put.json(), {
    message: "Method PUT not allowed: use GET, HEAD, POST",
  });
  const missing = await app.request("/other", { method: "PUT" });
  assert.equal(missing.status, 404);
  assert.deepEqual(await missing.json(), { message: "Not found" });
  const head = await app.request("/other", { method: "HEAD" });
  assert.equal(head.status, 404);
  assert.equal(head.headers.get("content-length"), "23");
});

Deno.test("unrouted() takes the methods of a path from methodsOf when it names them", async () => {
  const app = new Hono();
  app.get("/items/:id", (c) => c.text(c.req.param("id")));
  app.get("/plain", (c) => c.text("plain"));
  app.notFound(
    unrouted(app, (path) => {
      if (!path.startsWith("/items/")) return undefined;
      return /^\/items\/\d+$/.test(path) ? ["GET", "HEAD"] : [];
    }),
  );
  const item = await app.request("/items/1", { method: "DELETE" });
  assert.equal(item.status, 405);
  assert.equal(item.headers.get("allow"), "GET, HEAD");
  await item.body?.cancel();
  const malformed = await app.request("/items/x", { method: "DELETE" });
  assert.equal(malformed.status, 404);
  await malformed.body?.cancel();
  // Left to the route table.
  const plain = await app.request("/plain", { method: "DELETE" });
  assert.equal(plain.status, 405);
  assert.equal(plain.headers.get("allow"), "GET, HEAD");
  await plain.body?.cancel();
});
