import assert from "node:assert/strict";
import { Hono } from "hono";
import { headLength, measuredHead } from "./head_length.ts";

Deno.test("headLength() gives HEAD the length and headers of GET, running the route once", async () => {
  const app = new Hono();
  app.use(headLength());
  let calls = 0;
  app.get("/text", (c) => {
    calls++;
    return c.text("héllo");
  });
  app.get("/sized", (c) => c.body("abc", 200, { "content-length": "3" }));
  const get = await app.request("/text");
  assert.equal((await get.arrayBuffer()).byteLength, 6);
  const head = await app.request("/text", { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("content-length"), "6");
  assert.equal(
    head.headers.get("content-type"),
    get.headers.get("content-type"),
  );
  assert.equal(head.body, null);
  assert.equal(calls, 2, "one GET and one HEAD, each running the route once");
  const sized = await app.request("/sized", { method: "HEAD" });
  assert.equal(sized.headers.get("content-length"), "3");
});

Deno.test("headLength() leaves GET responses without a Content-Length of its own", async () => {
  const app = new Hono();
  app.use(headLength());
  app.get("/text", (c) => c.text("hello"));
  const get = await app.request("/text");
  assert.equal(get.headers.get("content-length"), null);
  assert.equal(await get.text(), "hello");
});

Deno.test("measuredHead() measures a response to HEAD only, and keeps its body", async () => {
  const head = await measuredHead("HEAD", Response.json({ message: "no" }));
  assert.equal(head.headers.get("content-length"), "16");
  assert.equal(await head.text(), '{"message":"no"}');
  const get = await measuredHead("GET", Response.json({ message: "no" }));
  assert.equal(get.headers.get("content-length"), null);
  await get.body?.cancel();
  const empty = await measuredHead("HEAD", new Response(null, { status: 204 }));
  assert.equal(empty.headers.get("content-length"), null);
});
