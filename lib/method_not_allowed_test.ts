import assert from "node:assert/strict";
import { Hono } from "hono";
import { methodNotAllowed } from "./method_not_allowed.ts";

Deno.test("methodNotAllowed() responds 405 with Allow and a JSON message", async () => {
  const app = new Hono();
  app.all("/x", (c) => methodNotAllowed(c, ["GET", "HEAD"]));
  const response = await app.request("/x", { method: "PUT" });
  assert.equal(response.status, 405);
  assert.equal(response.headers.get("allow"), "GET, HEAD");
  assert.deepEqual(await response.json(), {
    message: "Method PUT not allowed: use GET, HEAD",
  });
});

Deno.test("methodNotAllowed() takes a hint, or responds with an empty body", async () => {
  const app = new Hono();
  app.all(
    "/hint",
    (c) => methodNotAllowed(c, ["GET"], { hint: "read the docs" }),
  );
  app.all("/empty", (c) => {
    c.header("x-kept", "yes");
    return methodNotAllowed(c, ["GET"], { emptyBody: true });
  });
  const hinted = await app.request("/hint", { method: "POST" });
  assert.deepEqual(await hinted.json(), {
    message: "Method POST not allowed: read the docs",
  });
  const empty = await app.request("/empty", { method: "POST" });
  assert.equal(empty.status, 405);
  assert.equal(empty.headers.get("allow"), "GET");
  assert.equal(empty.headers.get("x-kept"), "yes");
  assert.equal(await empty.text(), "");
});
