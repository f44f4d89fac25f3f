import assert from "node:assert/strict";
import { Hono } from "hono";
import { limitBody } from "./limit_body.ts";

Deno.test("limitBody()", async (t) => {
  const app = new Hono();
  app.post(
    "/upload",
    limitBody(10),
    async (c) => c.json({ size: (await c.req.text()).length }),
  );

  await t.step("returns 413 past the limit", async () => {
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

  await t.step("counts a streamed body across chunks", async () => {
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
    "returns 413 to a declared length past the limit",
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
