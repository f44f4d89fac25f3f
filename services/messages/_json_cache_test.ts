import assert from "node:assert/strict";
import { createJsonCache } from "./_json_cache.ts";

Deno.test("createJsonCache() renders once per revision and key", () => {
  let revision = 1;
  let renders = 0;
  const cache = createJsonCache(() => revision);
  const render = () => {
    renders++;
    return { n: renders };
  };
  assert.equal(cache.get("a", render)?.text, '{"n":1}');
  assert.equal(cache.get("a", render)?.text, '{"n":1}');
  assert.equal(cache.get(1, render)?.text, '{"n":2}');
  revision = 2;
  assert.equal(cache.get("a", render)?.text, '{"n":3}');
  assert.equal(renders, 3);
});

Deno.test("createJsonCache() does not keep missing values and starts over when full", () => {
  let renders = 0;
  const cache = createJsonCache(() => 0, 2);
  assert.equal(cache.get(1, () => undefined), undefined);
  assert.equal(cache.get(1, () => (renders++, "x"))?.text, '"x"');
  cache.get(2, () => (renders++, "y"));
  cache.get(3, () => (renders++, "z")); // full: starts over
  cache.get(1, () => (renders++, "x"));
  assert.equal(renders, 4);
});

Deno.test("createJsonCache() keeps the UTF-8 length of each text", () => {
  const cache = createJsonCache(() => 0);
  assert.deepEqual(cache.get("k", () => "é€"), { text: '"é€"', length: "7" });
});
