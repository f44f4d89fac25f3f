import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { createHttp1Client } from "./client.ts";
import { createUpstream, fetchUpstream } from "./upstream.ts";
import { startRawServer } from "./_test_helpers.ts";

const GZIPPED = gzipSync("hello");

Deno.test("fetchUpstream() returns the raw header list, says what fetch decoded, follows no redirect", async () => {
  const seen: Request[] = [];
  const upstream = fetchUpstream((input, init) => {
    seen.push(new Request(input, init));
    const url = String(input);
    if (url.endsWith("/moved")) {
      return Promise.resolve(
        new Response(null, { status: 302, headers: { location: "/there" } }),
      );
    }
    const headers = new Headers([["x-a", "1"], ["set-cookie", "a=1"]]);
    headers.append("set-cookie", "b=2");
    if (url.endsWith("/gzip")) headers.set("content-encoding", "gzip");
    return Promise.resolve(new Response("body", { headers }));
  });
  const plain = await upstream("https://upstream.example/plain", {
    method: "PUT",
    headers: [["x-b", "2"]],
    body: "up",
  });
  assert.equal(plain.decoded, false);
  assert.deepEqual(plain.headers.filter(([name]) => name === "set-cookie"), [
    ["set-cookie", "a=1"],
    ["set-cookie", "b=2"],
  ]);
  assert.equal(await new Response(plain.body).text(), "body");
  assert.equal(seen[0]?.method, "PUT");
  assert.equal(seen[0]?.headers.get("x-b"), "2");
  assert.equal(seen[0]?.redirect, "manual");
  const coded = await upstream("https://upstream.example/gzip");
  assert.equal(coded.decoded, true);
  assert.equal(await new Response(coded.body).text(), "body");
  const moved = await upstream("https://upstream.example/moved");
  assert.equal(moved.status, 302);
});

Deno.test("createUpstream() sends http: through the pooled client, others through fetch", async () => {
  const server = startRawServer(() => {
    const head =
      `HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: ${GZIPPED.length}\r\n\r\n`;
    const bytes = new Uint8Array(head.length + GZIPPED.length);
    bytes.set(new TextEncoder().encode(head));
    bytes.set(GZIPPED, head.length);
    return bytes;
  });
  const http1 = createHttp1Client();
  const fetched: string[] = [];
  const upstream = createUpstream({
    http1,
    fetch: (input) => {
      fetched.push(String(input));
      return Promise.resolve(new Response("from fetch"));
    },
  });
  try {
    const pooled = await upstream(`${server.url}/x`);
    assert.equal(pooled.decoded, true);
    assert.deepEqual(pooled.headers[0], ["content-encoding", "gzip"]);
    assert.equal(await new Response(pooled.body).text(), "hello");
    assert.equal(server.heads.length, 1);
    const other = await upstream("https://upstream.example/y");
    assert.equal(await new Response(other.body).text(), "from fetch");
    assert.deepEqual(fetched, ["https://upstream.example/y"]);
  } finally {
    http1.close();
    await server.stop();
  }
});
