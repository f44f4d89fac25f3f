import assert from "node:assert/strict";
import { createJsonCache, noneMatchHits } from "./_json_cache.ts";

Deno.test("createJsonCache() renders once per revision and key", async () => {
  let revision = 1;
  let renders = 0;
  const cache = createJsonCache(() => revision);
  const render = () => {
    renders++;
    return Promise.resolve({ body: { n: renders } });
  };
  const text = async (key: string | number) =>
    (cache.get(key) ?? await cache.load(key, render))?.text;
  assert.equal(cache.get("a"), undefined);
  assert.equal(await text("a"), '{"n":1}');
  assert.equal(cache.get("a")?.text, '{"n":1}');
  assert.equal(await text(1), '{"n":2}');
  revision = 2;
  assert.equal(cache.get("a"), undefined);
  assert.equal(await text("a"), '{"n":3}');
  assert.equal(renders, 3);
});

Deno.test("createJsonCache() does not keep missing values and starts over when full", async () => {
  let renders = 0;
  const cache = createJsonCache(() => 0, 2);
  const load = async (key: number, body: string) => {
    if (cache.get(key)) return;
    await cache.load(key, () => (renders++, Promise.resolve({ body })));
  };
  assert.equal(
    await cache.load(1, () => Promise.resolve(undefined)),
    undefined,
  );
  assert.equal(cache.get(1), undefined);
  await load(1, "x");
  await load(1, "x");
  await load(2, "y");
  await load(3, "z"); // full: starts over
  await load(1, "x");
  assert.equal(renders, 4);
});

Deno.test("createJsonCache() starts over past maxChars of text, keeping one larger response alone", async () => {
  let renders = 0;
  const cache = createJsonCache(() => 0, 100, 10);
  const get = async (key: number, body: string) => {
    if (cache.get(key)) return;
    await cache.load(key, () => (renders++, Promise.resolve({ body })));
  };
  await get(1, "abc"); // 5 characters with the quotes
  await get(2, "def"); // 10: still within
  await get(1, "abc");
  await get(2, "def");
  assert.equal(renders, 2, String(renders));
  await get(3, "ghi"); // 15 > 10: starts over, keeps 3
  await get(1, "abc");
  assert.equal(renders, 4, String(renders));
  await get(4, "a long response past the bound");
  await get(4, "a long response past the bound");
  assert.equal(renders, 5, String(renders));
});

Deno.test("createJsonCache() keeps the UTF-8 length, the tag and the headers", async () => {
  const cache = createJsonCache(() => 0);
  const entry = await cache.load(
    "k",
    () => Promise.resolve({ body: "é€", headers: { "x-a": "1" } }),
  );
  assert.ok(entry);
  assert.equal(cache.get("k"), entry);
  assert.equal(entry.text, '"é€"');
  assert.equal(entry.length, "7");
  assert.match(entry.etag, /^"[0-9a-z]+-[0-9a-z]+"$/);
  assert.deepEqual(entry.headers, {
    "content-type": "application/json",
    etag: entry.etag,
    "x-a": "1",
  });
});

Deno.test("createJsonCache() tags equal responses alike and different ones apart", async () => {
  const tag = async (body: unknown, headers?: Record<string, string>) => {
    const entry = await createJsonCache(() => 0).load(
      "k",
      () => Promise.resolve({ body, headers }),
    );
    return entry?.etag;
  };
  assert.equal(await tag({ a: 1 }), await tag({ a: 1 }));
  assert.notEqual(await tag({ a: 1 }), await tag({ a: 2 }));
  assert.notEqual(
    await tag([1], { "x-total-count": "1" }),
    await tag([1], { "x-total-count": "2" }),
  );
});

Deno.test("createJsonCache() gives a render during which the revision moved, without keeping it", async () => {
  let revision = 0;
  const cache = createJsonCache(() => revision);
  const moving = cache.load("b", async () => {
    revision++;
    await Promise.resolve();
    return { body: "stale" };
  });
  assert.equal((await moving)?.text, '"stale"');
  assert.equal(cache.get("b"), undefined);
  const kept = await cache.load("b", () => Promise.resolve({ body: "fresh" }));
  assert.equal(cache.get("b"), kept);
});

Deno.test("createJsonCache() passes a render's rejection on, keeping nothing", async () => {
  const cache = createJsonCache(() => 0);
  const failure = new Error("bad query");
  await assert.rejects(cache.load("q", () => Promise.reject(failure)), failure);
  assert.equal(cache.get("q"), undefined);
});

Deno.test("noneMatchHits() compares weakly, in lists, and takes *", () => {
  assert.ok(noneMatchHits('"a"', '"a"'));
  assert.ok(noneMatchHits('W/"a"', '"a"'));
  assert.ok(noneMatchHits('"x", "a"', '"a"'));
  assert.ok(noneMatchHits("*", '"a"'));
  assert.ok(!noneMatchHits('"b"', '"a"'));
  assert.ok(!noneMatchHits("", '"a"'));
});
