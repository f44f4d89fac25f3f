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
  assert.equal(cache.get("a", render), '{"n":1}');
  assert.equal(cache.get("a", render), '{"n":1}');
  assert.equal(cache.get(1, render), '{"n":2}');
  revision = 2;
  assert.equal(cache.get("a", render), '{"n":3}');
  assert.equal(renders, 3);
});

Deno.test("createJsonCache() does not keep missing values and starts over when full", () => {
  let renders = 0;
  const cache = createJsonCache(() => 0, 2);
  assert.equal(cache.get(1, () => undefined), undefined);
  assert.equal(cache.get(1, () => (renders++, "x")), '"x"');
  cache.get(2, () => (renders++, "y"));
  cache.get(3, () => (renders++, "z")); // full: starts over
  cache.get(1, () => (renders++, "x"));
  assert.equal(renders, 4);
});
