import assert from "node:assert/strict";
import { createResponseStore, type StoredResponse } from "./_response_store.ts";

const entry = (
  key: string,
  bytes: number,
  expiresAt = 1_000,
): StoredResponse => ({
  key,
  primary: key.split("\n")[0]!,
  vary: [],
  status: 200,
  statusText: "OK",
  headers: [],
  body: new Uint8Array(bytes),
  storedAt: 0,
  expiresAt,
  upstreamAge: 0,
});

Deno.test("createResponseStore() evicts the least recently used past its bound", () => {
  const store = createResponseStore(300);
  store.put(entry("a", 100));
  store.put(entry("b", 100));
  store.put(entry("c", 100));
  assert.ok(store.get("a", 0)); // a is now the most recently used
  store.put(entry("d", 100));
  assert.equal(store.get("b", 0), undefined);
  assert.deepEqual(
    ["a", "c", "d"].map((key) => store.get(key, 0)?.key),
    ["a", "c", "d"],
  );
  assert.equal(store.bytes, 300);
  store.put(entry("a", 50)); // replacing counts the new size only
  assert.equal(store.bytes, 250);
});

Deno.test("createResponseStore() drops an expired entry when asked for it", () => {
  const store = createResponseStore(1_000);
  store.put(entry("a", 10, 500));
  assert.ok(store.get("a", 499));
  assert.equal(store.get("a", 500), undefined);
  assert.equal(store.size, 0);
  assert.equal(store.bytes, 0);
});

Deno.test("createResponseStore() invalidates every variant of a primary key", () => {
  const store = createResponseStore(1_000);
  store.put({ ...entry("p\naccept: a", 10), vary: ["accept"] });
  store.put({ ...entry("p\naccept: b", 10), vary: ["accept"] });
  store.put(entry("q", 10));
  assert.deepEqual(store.varyOf("p"), ["accept"]);
  store.invalidate("p");
  assert.equal(store.size, 1);
  assert.equal(store.varyOf("p"), undefined);
  assert.ok(store.get("q", 0));
});

Deno.test("createResponseStore() counts each entry's key and headers too, so empty bodies cannot pile up", () => {
  const store = createResponseStore(10_000);
  // Clients choose the URL: an upstream returning empty bodies to every query must
  // not make the store grow without bound (here: 1 MiB, the least bound, of keys,
  // headers and 256 bytes per entry).
  for (let i = 0; i < 10_000; i++) {
    store.put({
      ...entry(`api http://upstream.example/x?n=${i}`, 0),
      headers: [["content-type", "application/json"]],
    });
  }
  assert.ok(store.size < 5_000, String(store.size));
  assert.ok(store.overheadBytes <= 1024 * 1024, String(store.overheadBytes));
  assert.ok(store.get("api http://upstream.example/x?n=9999", 0));
  assert.equal(store.get("api http://upstream.example/x?n=0", 0), undefined);
});
