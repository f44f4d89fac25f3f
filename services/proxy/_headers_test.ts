import assert from "node:assert/strict";
import { clientHeaderPairs, upstreamRequestHeaders } from "./_headers.ts";

/** The headers' content, order aside (the order of lines carries no meaning). */
function sorted(pairs: Iterable<[string, string]>): string[] {
  return [...pairs].map(([name, value]) => `${name}: ${value}`).sort();
}

Deno.test("clientHeaderPairs() drops hop-by-hop headers and those Connection names", () => {
  const pairs = clientHeaderPairs([
    ["connection", "keep-alive, X-Private"],
    ["x-private", "hop"],
    ["keep-alive", "timeout=5"],
    ["transfer-encoding", "chunked"],
    ["upgrade", "h2c"],
    ["te", "trailers"],
    ["trailer", "x"],
    ["proxy-authenticate", "Basic"],
    ["x-upstream", "1"],
  ], "*");
  assert.deepEqual(sorted(pairs), [
    "access-control-allow-origin: *",
    "access-control-expose-headers: *",
    "x-upstream: 1",
  ]);
});

Deno.test("clientHeaderPairs() sets the CORS headers, the upstream's own replaced", () => {
  const upstream: [string, string][] = [
    ["access-control-allow-origin", "https://other.example"],
    ["access-control-expose-headers", "x-secret"],
    ["x-b", "2"],
    ["x-a", "1"],
    ["x-a", "3"],
  ];
  assert.deepEqual(sorted(clientHeaderPairs(upstream, "https://app.example")), [
    "access-control-allow-origin: https://app.example",
    "access-control-expose-headers: x-a, x-b",
    "x-a: 1",
    "x-a: 3",
    "x-b: 2",
  ]);
});

Deno.test("clientHeaderPairs() leaves the pairs it was given unchanged", () => {
  const pairs: [string, string][] = [["connection", "close"], ["x", "1"]];
  clientHeaderPairs(pairs, "*");
  assert.deepEqual(pairs, [["connection", "close"], ["x", "1"]]);
});

Deno.test("clientHeaderPairs() drops a length sent beside a transfer coding", () => {
  const pairs = clientHeaderPairs([
    ["content-length", "3"],
    ["transfer-encoding", "chunked"],
  ], "*");
  assert.ok(!pairs.some(([name]) => name === "content-length"));
});

Deno.test("upstreamRequestHeaders() does not pass the client's cookies on", () => {
  const pairs = upstreamRequestHeaders(
    new Headers([
      ["cookie", "session=of-another-app"],
      ["cookie2", '$Version="1"'],
      ["authorization", "Bearer for-the-upstream"],
      ["x-a", "1"],
    ]),
    "1.1 proxy",
  );
  assert.deepEqual(pairs, [
    ["authorization", "Bearer for-the-upstream"],
    ["x-a", "1"],
    ["via", "1.1 proxy"],
  ]);
});

Deno.test("clientHeaderPairs() drops the upstream's cookies", () => {
  const pairs = clientHeaderPairs([
    ["set-cookie", "a=1; Path=/"],
    ["set-cookie", "b=2"],
    ["set-cookie2", "c=3"],
    ["x-a", "1"],
  ], "https://app.example");
  assert.deepEqual(pairs.filter(([name]) => name.includes("cookie")), []);
  assert.ok(pairs.some(([name]) => name === "x-a"));
  assert.deepEqual(
    pairs.find(([name]) => name === "access-control-expose-headers"),
    ["access-control-expose-headers", "x-a"],
  );
});

Deno.test("clientHeaderPairs() passes the locations through relocate", () => {
  const upstream: [string, string][] = [
    ["location", "/base/x"],
    ["content-location", "/base/y"],
    ["x-location", "/base/z"],
  ];
  const relocate = (value: string) => value.replace("/base", "/api");
  const headers = new Headers(clientHeaderPairs(upstream, "*", relocate));
  assert.equal(headers.get("location"), "/api/x");
  assert.equal(headers.get("content-location"), "/api/y");
  assert.equal(headers.get("x-location"), "/base/z");
  assert.equal(upstream[0]![1], "/base/x");
});

Deno.test("clientHeaderPairs() drops coding and length of a decoded body only", () => {
  const upstream: [string, string][] = [
    ["content-encoding", "deflate"],
    ["content-length", "40"],
    ["etag", '"a"'],
  ];
  assert.deepEqual(sorted(clientHeaderPairs(upstream, "*", undefined, true)), [
    "access-control-allow-origin: *",
    "access-control-expose-headers: *",
    'etag: "a"',
  ]);
  assert.deepEqual(sorted(clientHeaderPairs(upstream, "*")), [
    "access-control-allow-origin: *",
    "access-control-expose-headers: *",
    "content-encoding: deflate",
    "content-length: 40",
    'etag: "a"',
  ]);
});
