import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { BodyTooLargeError } from "../bounded_body.ts";
import { createHttp1Client } from "./client.ts";
import { exchangeOver, wholeResponse } from "./exchange.ts";
import { createUpstream } from "./upstream.ts";

Deno.test("wholeResponse() reads a body within its bound, and fails past it", async () => {
  const response = (text: string) => ({
    status: 200,
    statusText: "OK",
    headers: [],
    body: new Response(text).body,
    decoded: false,
  });
  const whole = await wholeResponse(response("hello"), false, 5);
  assert.equal(new TextDecoder().decode(whole.body), "hello");
  await assert.rejects(
    wholeResponse(response("hello!"), false, 5),
    BodyTooLargeError,
  );
});

Deno.test("exchangeOver() stops a decompression bomb at maxBodyBytes", async () => {
  const bomb = gzipSync(new Uint8Array(64 << 20));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(bomb, { headers: { "content-encoding": "gzip" } }),
  );
  const client = createHttp1Client();
  try {
    const exchange = exchangeOver(createUpstream({ http1: client }));
    await assert.rejects(
      exchange(`http://127.0.0.1:${server.addr.port}/`, {
        maxBodyBytes: 1 << 20,
      }),
      (error: Error) =>
        error instanceof BodyTooLargeError && error.maxBytes === 1 << 20,
    );
  } finally {
    client.close();
    await server.shutdown();
  }
});
