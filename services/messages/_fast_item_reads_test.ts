import assert from "node:assert/strict";
import { Hono } from "hono";
import { withFastItemReads } from "./_fast_item_reads.ts";

function setup(read: (rest: string) => string | undefined) {
  const app = new Hono();
  app.get("/items/:id", (c) => c.text(`app ${c.req.param("id")}`));
  const reads: string[] = [];
  withFastItemReads(app, "/items/", (rest) => {
    reads.push(rest);
    return read(rest);
  });
  return { app, reads };
}

Deno.test("withFastItemReads() answers a readable GET itself", async () => {
  const { app, reads } = setup((rest) => `{"id":${rest}}`);
  const response = await app.request("http://localhost/items/42");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "application/json");
  assert.equal(await response.text(), '{"id":42}');
  assert.deepEqual(reads, ["42"]);
});

Deno.test("withFastItemReads() leaves everything else to the app", async () => {
  const { app, reads } = setup((rest) => (rest === "1" ? "{}" : undefined));
  for (
    const [method, path] of [
      ["HEAD", "/items/1"],
      ["POST", "/items/1"],
      ["GET", "/items/1?x=1"],
      ["GET", "/items/%31"],
      ["GET", "/items/01"],
      ["GET", "/items/1/"],
      ["GET", "/other/items/1"],
    ] as const
  ) {
    const response = await app.request(`http://localhost${path}`, { method });
    const text = await response.text();
    assert.notEqual(text, "{}", `${method} ${path}`);
  }
  assert.deepEqual(reads, ["1?x=1", "%31", "01", "1/"]);
});

Deno.test("withFastItemReads() lets the app handle a failing read", async () => {
  const { app } = setup(() => {
    throw new Error("disk I/O error");
  });
  const response = await app.request("http://localhost/items/3");
  assert.equal(await response.text(), "app 3");
});
