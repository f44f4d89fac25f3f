import assert from "node:assert/strict";
import { createHttpApp } from "./http.ts";
import { listenAt, reachableHost, serveApp } from "./serve.ts";
import { createMemoryLog } from "./_test_memory_log.ts";

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
  // A keep-alive client is told not to send its next request on this connection.
  assert.equal(response.headers.get("connection"), "close");
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
    headers: { "x-every": "response" },
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
  assert.equal(late.headers.get("x-every"), "response");
  await late.body?.cancel();
  await send("67890");
  const text = await new Response(conn.readable).text();
  assert.match(text, /^HTTP\/1\.1 200 /);
  assert.match(text, /got 10$/);
  await stopped;
  assert.deepEqual(log.at("ERROR"), []);
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
  /** Sends `DELETE /2` with `host` on a raw connection; returns the response's text. */
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
      const text = await raw(host);
      assert.match(text, /^HTTP\/1\.1 400 /, host);
      assert.match(text, /x-role: test/, host);
      assert.match(text, /\{"message":"Invalid Host header"\}$/, host);
    }
    assert.match(await raw("127.0.0.1:8001"), /deleted root 2$/);
    assert.match(await raw("[::1]:8001"), /deleted root 2$/);
  } finally {
    await server.stop();
  }
});

Deno.test("serveApp() logs a failure that escapes the app and returns 500", async () => {
  const log = createMemoryLog();
  const server = serveApp({
    fetch: (request) =>
      new URL(request.url).pathname === "/sync"
        ? (() => {
          throw new Error("thrown at once");
        })()
        : Promise.reject(new Error("rejected later")),
  }, { hostname: "127.0.0.1", port: 0, log, name: "test" });
  try {
    for (const path of ["/sync", "/async"]) {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, 500);
      assert.deepEqual(await response.json(), {
        message: "Internal server error",
      });
    }
    assert.deepEqual(log.at("ERROR"), [
      "test: thrown at once",
      "test: rejected later",
    ]);
  } finally {
    await server.stop();
  }
});
