import assert from "node:assert/strict";
import { HTTPException } from "hono/http-exception";
import {
  createHttpApp,
  limitBody,
  listenAt,
  reachableHost,
  serveApp,
} from "./http.ts";
import { createMemoryLog } from "./log.ts";

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

Deno.test("serveApp() finishes in-flight requests before stopping", async () => {
  const log = createMemoryLog();
  const app = createHttpApp({ log });
  let release!: () => void;
  const released = new Promise<void>((resolve) => release = resolve);
  app.get("/slow", async (c) => {
    await released;
    return c.text("finished");
  });
  const server = serveApp(app, {
    hostname: "127.0.0.1",
    port: 0,
    log,
    name: "test",
  });
  assert.match(
    log.at("INFO")[0]!,
    /^test listening on http:\/\/127\.0\.0\.1:\d+$/,
  );
  const pending = fetch(`${server.url}/slow`);
  await new Promise((resolve) => setTimeout(resolve, 50));
  const stopped = server.stop();
  release();
  const response = await pending;
  assert.equal(await response.text(), "finished");
  await stopped;
});

Deno.test("serveApp() lets an upload still arriving finish, and turns new requests away", async () => {
  const log = createMemoryLog();
  const app = createHttpApp({ log });
  app.post(
    "/upload",
    async (c) => c.text(`got ${(await c.req.text()).length}`),
  );
  const server = serveApp(app, {
    hostname: "127.0.0.1",
    port: 0,
    log,
    name: "test",
    headers: { "x-every": "answer" },
  });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  const send = (text: string) => conn.write(new TextEncoder().encode(text));
  await send(
    "POST /upload HTTP/1.1\r\nhost: x\r\ncontent-length: 10\r\n\r\n12345",
  );
  await new Promise((resolve) => setTimeout(resolve, 50));
  const stopped = server.stop();
  const late = await fetch(`${server.url}/upload`, {
    method: "POST",
    body: "x",
  });
  assert.equal(late.status, 503);
  assert.equal(late.headers.get("x-every"), "answer");
  await late.body?.cancel();
  await send("67890");
  const answer = await new Response(conn.readable).text();
  assert.match(answer, /^HTTP\/1\.1 200 /);
  assert.match(answer, /got 10$/);
  await stopped;
  assert.deepEqual(log.at("ERROR"), []);
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

Deno.test("listenAt() and reachableHost() name where a role listens and how to reach it", () => {
  assert.deepEqual(listenAt("X", { X_HOST: "0.0.0.0", X_PORT: 8001 }), {
    hostname: "0.0.0.0",
    port: 8001,
    hostSetting: "X_HOST",
    portSetting: "X_PORT",
  });
  assert.equal(reachableHost("0.0.0.0"), "127.0.0.1");
  assert.equal(reachableHost("::"), "127.0.0.1");
  assert.equal(reachableHost("::1"), "[::1]");
  assert.equal(reachableHost("pi.lan"), "pi.lan");
});

Deno.test("serveApp() refuses a Host header that would move the request to another path", async () => {
  const log = createMemoryLog();
  const app = createHttpApp({ log });
  app.delete("/api/item/2", (c) => c.text("deleted 2"));
  app.delete("/2", (c) => c.text("deleted root 2"));
  const server = serveApp(app, {
    hostname: "127.0.0.1",
    port: 0,
    log,
    name: "test",
    headers: { "x-role": "test" },
  });
  /** Sends `DELETE /2` with `host` on a raw connection; returns the answer's text. */
  const raw = async (host: string) => {
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: server.port,
    });
    await conn.write(
      new TextEncoder().encode(
        `DELETE /2 HTTP/1.1\r\nhost: ${host}\r\nconnection: close\r\n\r\n`,
      ),
    );
    let text = "";
    const buffer = new Uint8Array(4096);
    for (
      let n = await conn.read(buffer);
      n !== null;
      n = await conn.read(buffer)
    ) {
      text += new TextDecoder().decode(buffer.subarray(0, n));
    }
    conn.close();
    return text;
  };
  try {
    for (const host of ["127.0.0.1/api/item", "x?y", "user@x", "x\\y", "x#y"]) {
      const answer = await raw(host);
      assert.match(answer, /^HTTP\/1\.1 400 /, host);
      assert.match(answer, /x-role: test/, host);
      assert.match(answer, /\{"message":"Invalid Host header"\}$/, host);
    }
    assert.match(await raw("127.0.0.1:8001"), /deleted root 2$/);
    assert.match(await raw("[::1]:8001"), /deleted root 2$/);
  } finally {
    await server.stop();
  }
});

Deno.test("createHttpApp() answers HEAD with the headers and length of GET, no body", async () => {
  const log = createMemoryLog();
  const app = createHttpApp({ log });
  app.get("/text", (c) => c.text("héllo"));
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
      assert.equal(head.headers.get("content-length"), length, path);
      assert.equal(
        head.headers.get("content-type"),
        get.headers.get("content-type"),
      );
      assert.equal((await head.arrayBuffer()).byteLength, 0);
    }
    const missing = await fetch(`${server.url}/nothing`, { method: "HEAD" });
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  } finally {
    await server.stop();
  }
});
