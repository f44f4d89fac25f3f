import assert from "node:assert/strict";
import {
  corsHeaders,
  corsPairs,
  exposeOn,
  fallbackOrigin,
  preflight,
  setByProxy,
  withCors,
} from "./cors.ts";

Deno.test("fallbackOrigin() is *, the first listed origin, or null for none", () => {
  assert.equal(fallbackOrigin("*"), "*");
  assert.equal(
    fallbackOrigin(["https://a.example", "https://b.example"]),
    "https://a.example",
  );
  assert.equal(fallbackOrigin([]), "null");
});

Deno.test("corsHeaders() and withCors() name the allowed origin, keeping one set already", () => {
  assert.deepEqual(corsHeaders("*"), { "access-control-allow-origin": "*" });
  const plain = withCors(new Response("x"), "https://a.example");
  assert.equal(
    plain.headers.get("access-control-allow-origin"),
    "https://a.example",
  );
  const own = withCors(
    new Response("x", {
      headers: { "access-control-allow-origin": "https://b.example" },
    }),
    "https://a.example",
  );
  assert.equal(
    own.headers.get("access-control-allow-origin"),
    "https://b.example",
  );
});

Deno.test("corsPairs() exposes * to any origin, the header names to a single one", () => {
  const kept: [string, string][] = [
    ["x-total", "3"],
    ["etag", '"1"'],
    ["access-control-allow-credentials", "true"],
  ];
  assert.deepEqual(corsPairs(kept, "*"), [
    ["access-control-allow-origin", "*"],
    ["access-control-expose-headers", "*"],
  ]);
  assert.deepEqual(corsPairs(kept, "https://a.example"), [
    ["access-control-allow-origin", "https://a.example"],
    ["access-control-expose-headers", "etag, x-total"],
  ]);
  assert.deepEqual(corsPairs([], "https://a.example"), [
    ["access-control-allow-origin", "https://a.example"],
  ]);
  assert.equal(setByProxy("access-control-allow-origin"), true);
  assert.equal(setByProxy("access-control-expose-headers"), true);
  // The upstream's own CORS headers never pass through (issue 25).
  assert.equal(setByProxy("access-control-allow-credentials"), true);
  assert.equal(setByProxy("access-control-max-age"), true);
  assert.equal(setByProxy("content-type"), false);
});

Deno.test("exposeOn(…, { onlyIfListed }) adds names to a listed value only, in Headers or pairs", () => {
  const headers = new Headers({ "access-control-expose-headers": "ETag, age" });
  exposeOn(headers, ["age", "x-cache"], { onlyIfListed: true });
  assert.equal(
    headers.get("access-control-expose-headers"),
    "etag, age, x-cache",
  );
  const any = new Headers({ "access-control-expose-headers": "*" });
  exposeOn(any, ["age"], { onlyIfListed: true });
  assert.equal(any.get("access-control-expose-headers"), "*");
  const none = new Headers();
  exposeOn(none, ["age"], { onlyIfListed: true });
  assert.equal(none.has("access-control-expose-headers"), false);
  const pairs: [string, string][] = [["access-control-expose-headers", "etag"]];
  exposeOn(pairs, ["age"], { onlyIfListed: true });
  assert.deepEqual(pairs, [["access-control-expose-headers", "etag, age"]]);
});

Deno.test("exposeOn() creates the list when absent and replaces pairs, not changes them", () => {
  const headers = new Headers();
  exposeOn(headers, ["ratelimit", "retry-after"]);
  assert.equal(
    headers.get("access-control-expose-headers"),
    "ratelimit, retry-after",
  );
  const any = new Headers({ "access-control-expose-headers": "*" });
  exposeOn(any, ["ratelimit"]);
  assert.equal(any.get("access-control-expose-headers"), "*");
  const shared: [string, string] = ["access-control-expose-headers", "etag"];
  const pairs: [string, string][] = [shared];
  exposeOn(pairs, ["ratelimit"]);
  assert.deepEqual(pairs, [[
    "access-control-expose-headers",
    "etag, ratelimit",
  ]]);
  assert.deepEqual(shared, ["access-control-expose-headers", "etag"]);
  const empty: [string, string][] = [];
  exposeOn(empty, ["ratelimit"]);
  assert.deepEqual(empty, [["access-control-expose-headers", "ratelimit"]]);
});

Deno.test("preflight() returns 204 with the methods and the asked headers", () => {
  const asked = preflight(
    new Request("http://proxy/api/x", {
      method: "OPTIONS",
      headers: { "access-control-request-headers": "x-api-key" },
    }),
    "*",
    ["GET", "OPTIONS"],
  );
  assert.equal(asked.status, 204);
  assert.equal(asked.headers.get("access-control-allow-origin"), "*");
  assert.equal(
    asked.headers.get("access-control-allow-methods"),
    "GET, OPTIONS",
  );
  assert.equal(asked.headers.get("access-control-allow-headers"), "x-api-key");
  assert.equal(asked.headers.get("access-control-max-age"), "86400");
  const bare = preflight(
    new Request("http://proxy/api/x", { method: "OPTIONS" }),
    "*",
    ["GET"],
  );
  assert.equal(bare.headers.has("access-control-allow-headers"), false);
});
