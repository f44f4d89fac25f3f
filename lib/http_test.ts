import assert from "node:assert/strict";
import { HTTPException } from "hono/http-exception";
import { createHttpApp, limitBody } from "./http.ts";
import { serveApp } from "./serve.ts";
import { createMemoryLog } from "./testing.ts";

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
  app.post(
    "/upload",
    limitBody(10),
    async (c) => c.json({ size: (await c.req.text()).length }),
  );

  await t.step("answers GET /healthz", async () => {
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

  await t.step("answers unknown paths 404 with a JSON message", async () => {
    const response = await app.request("/nowhere");
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), { message: "Not found" });
  });

  await t.step(
    "logs an unexpected error and answers a generic 500",
    async () => {
      const response = await app.request("/boom");
      assert.equal(response.status, 500);
      assert.deepEqual(await response.json(), {
        message: "Internal server error",
      });
      assert.deepEqual(log.at("ERROR"), ["GET /boom failed: database on fire"]);
    },
  );

  await t.step("limitBody() answers 413 past the limit", async () => {
    const ok = await app.request("/upload", {
      method: "POST",
      body: "0123456789",
    });
    assert.deepEqual(await ok.json(), { size: 10 });
    const big = await app.request("/upload", {
      method: "POST",
      body: "0123456789X",
    });
    assert.equal(big.status, 413);
    assert.match((await big.json()).message, /limit is 10 bytes/);
  });

  await t.step("limitBody() counts a streamed body across chunks", async () => {
    const stream = (...parts: string[]) =>
      new Blob(parts).stream().pipeThrough(
        new TransformStream({ transform: (chunk, out) => out.enqueue(chunk) }),
      );
    const ok = await app.request("/upload", {
      method: "POST",
      body: stream("01234", "56789"),
    });
    assert.deepEqual(await ok.json(), { size: 10 });
    const big = await app.request("/upload", {
      method: "POST",
      body: stream("01234", "56789", "X"),
    });
    assert.equal(big.status, 413);
    await big.body?.cancel();
  });

  await t.step(
    "limitBody() answers 413 to a declared length past the limit",
    async () => {
      const big = await app.request("/upload", {
        method: "POST",
        headers: { "content-length": "11" },
        body: "0123456789X",
      });
      assert.equal(big.status, 413);
      await big.body?.cancel();
    },
  );
});

Deno.test("createHttpApp() answers 405 with Allow for another method on a routed path", async () => {
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

Deno.test("createHttpApp() answers HEAD with the headers and length of GET, no body", async () => {
  const log = createMemoryLog();
  const app = createHttpApp({ log });
  let calls = 0;
  app.get("/text", (c) => {
    calls++;
    return c.text("héllo");
  });
  const server = serveApp(app, {
    hostname: "127.0.0.1",
    port: 0,
    log,
    name: "test",
  });
  try {
    for (const [path, length] of [["/healthz", "15"], ["/text", "6"]]) {
      const get = await fetch(`${server.url}${path}`);
      const body = await get.arrayBuffer();
      assert.equal(String(body.byteLength), length);
      const head = await fetch(`${server.url}${path}`, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get("content-length"), length, String(path));
      assert.equal(
        head.headers.get("content-type"),
        get.headers.get("content-type"),
      );
      assert.equal((await head.arrayBuffer()).byteLength, 0);
    }
    assert.equal(calls, 2, "one GET and one HEAD, each running the route once");
    const missing = await fetch(`${server.url}/nothing`, { method: "HEAD" });
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  } finally {
    await server.stop();
  }
});

Deno.test("createHttpApp() runs its around middleware before everything, around the app's own answers", async () => {
  const app = createHttpApp({
    log: createMemoryLog(),
    headers: { "x-every": "1" },
    around: async (c, next) => {
      if (c.req.header("x-refuse")) return c.body(null, 403);
      await next();
      c.res.headers.set("x-around", c.res.headers.get("x-every") ?? "none");
    },
  });
  app.get("/boom", () => {
    throw new Error("database on fire");
  });
  for (
    const [path, status] of [["/healthz", 200], ["/nowhere", 404], [
      "/boom",
      500,
    ]] as const
  ) {
    const response = await app.request(path);
    await response.body?.cancel();
    assert.equal(response.status, status, path);
    // It runs outside `headers`: it sees what they added.
    assert.equal(response.headers.get("x-around"), "1", path);
  }
  const refused = await app.request("/healthz", {
    headers: { "x-refuse": "yes" },
  });
  assert.equal(refused.status, 403);
  // Nothing inside it ran: not even the headers every answer gets.
  assert.equal(refused.headers.has("x-every"), false);
});

Deno.test("createHttpApp() with headersInRoutes puts the headers on its own answers, and leaves the routes' to them", async () => {
  const app = createHttpApp({
    log: createMemoryLog(),
    headers: { "x-every": "1" },
    headersInRoutes: true,
    headLength: false,
  });
  app.get("/own", (c) => c.text("mine", 200, { "x-every": "route" }));
  app.get("/bare", (c) => c.text("bare"));
  app.post("/bare", (c) => c.text("bare"));
  app.get("/boom", () => {
    throw new Error("database on fire");
  });
  app.get("/refused", () => {
    throw new HTTPException(418, { message: "no" });
  });
  for (
    const [path, method, status] of [
      ["/healthz", "GET", 200],
      ["/nowhere", "GET", 404],
      ["/bare", "PUT", 405],
      ["/boom", "GET", 500],
      ["/refused", "GET", 418],
    ] as const
  ) {
    const response = await app.request(path, { method });
    await response.body?.cancel();
    assert.equal(response.status, status, path);
    assert.equal(response.headers.get("x-every"), "1", path);
  }
  const own = await app.request("/own");
  assert.equal(own.headers.get("x-every"), "route");
  assert.equal(await own.text(), "mine");
  // No middleware: a route that does not set them answers without them.
  const bare = await app.request("/bare");
  assert.equal(bare.headers.get("x-every"), null);
  assert.equal(await bare.text(), "bare");
});
