import assert from "node:assert/strict";
import { createJsonCache, noneMatchHits } from "./_json_cache.ts";

Deno.test("createJsonCache() renders once per revision and key", () => {
  let revision = 1;
  let renders = 0;
  const cache = createJsonCache(() => revision);
  const render = () => {
    renders++;
    return { body: { n: renders } };
  };
  const text = (key: string | number) =>
    (cache.get(key, render) as { text: string } | undefined)?.text;
  assert.equal(text("a"), '{"n":1}');
  assert.equal(text("a"), '{"n":1}');
  assert.equal(text(1), '{"n":2}');
  revision = 2;
  assert.equal(text("a"), '{"n":3}');
  assert.equal(renders, 3);
});

Deno.test("createJsonCache() does not keep missing values and starts over when full", () => {
  let renders = 0;
  const cache = createJsonCache(() => 0, 2);
  assert.equal(cache.get(1, () => undefined), undefined);
  cache.get(1, () => (renders++, { body: "x" }));
  cache.get(1, () => (renders++, { body: "x" }));
  cache.get(2, () => (renders++, { body: "y" }));
  cache.get(3, () => (renders++, { body: "z" })); // full: starts over
  cache.get(1, () => (renders++, { body: "x" }));
  assert.equal(renders, 4);
});

Deno.test("createJsonCache() starts over past maxChars of text, keeping one larger answer alone", () => {
  let renders = 0;
  const cache = createJsonCache(() => 0, 100, 10);
  const get = (key: number, body: string) =>
    cache.get(key, () => (renders++, { body }));
  get(1, "abc"); // 5 characters with the quotes
  get(2, "def"); // 10: still within
  get(1, "abc");
  get(2, "def");
  assert.equal(renders, 2, String(renders));
  get(3, "ghi"); // 15 > 10: starts over, keeps 3
  get(1, "abc");
  assert.equal(renders, 4, String(renders));
  get(4, "a long answer past the bound");
  get(4, "a long answer past the bound");
  assert.equal(renders, 5, String(renders));
});

Deno.test("createJsonCache() keeps the UTF-8 length, the tag and the headers", () => {
  const cache = createJsonCache(() => 0);
  const entry = cache.get("k", () => ({ body: "é€", headers: { "x-a": "1" } }));
  assert.ok(entry && !(entry instanceof Promise));
  assert.equal(entry.text, '"é€"');
  assert.equal(entry.length, "7");
  assert.match(entry.etag, /^"[0-9a-z]+-[0-9a-z]+"$/);
  assert.deepEqual(entry.headers, {
    "content-type": "application/json",
    etag: entry.etag,
    "x-a": "1",
  });
});

Deno.test("createJsonCache() tags equal answers alike and different ones apart", () => {
  const tag = (body: unknown, headers?: Record<string, string>) => {
    const entry = createJsonCache(() => 0).get("k", () => ({ body, headers }));
    return (entry as { etag: string }).etag;
  };
  assert.equal(tag({ a: 1 }), tag({ a: 1 }));
  assert.notEqual(tag({ a: 1 }), tag({ a: 2 }));
  assert.notEqual(
    tag([1], { "x-total-count": "1" }),
    tag([1], { "x-total-count": "2" }),
  );
});

Deno.test("createJsonCache() awaits an asynchronous render and keeps it unless the revision moved", async () => {
  let revision = 0;
  let renders = 0;
  const cache = createJsonCache(() => revision);
  const render = async () => {
    renders++;
    await Promise.resolve();
    return { body: renders };
  };
  assert.equal((await cache.get("a", render))?.text, "1");
  assert.equal((await cache.get("a", render))?.text, "1");
  const moving = cache.get("b", async () => {
    revision++;
    await Promise.resolve();
    return { body: "stale" };
  });
  assert.equal((await moving)?.text, '"stale"');
  assert.equal((await cache.get("b", render))?.text, "2");
});

Deno.test("noneMatchHits() compares weakly, in lists, and takes *", () => {
  assert.ok(noneMatchHits('"a"', '"a"'));
  assert.ok(noneMatchHits('W/"a"', '"a"'));
  assert.ok(noneMatchHits('"x", "a"', '"a"'));
  assert.ok(noneMatchHits("*", '"a"'));
  assert.ok(!noneMatchHits('"b"', '"a"'));
  assert.ok(!noneMatchHits("", '"a"'));
});
