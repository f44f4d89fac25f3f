import assert from "node:assert/strict";
import { callerHeaderPairs, remoteRequestHeaders } from "./_headers.ts";

/** The headers' content, order aside (the order of lines carries no meaning). */
function sorted(pairs: Iterable<[string, string]>): string[] {
  return [...pairs].map(([name, value]) => `${name}: ${value}`).sort();
}

Deno.test("callerHeaderPairs() drops hop-by-hop headers and those Connection names", () => {
  const pairs = callerHeaderPairs([
    ["connection", "keep-alive, X-Private"],
    ["x-private", "hop"],
    ["keep-alive", "timeout=5"],
    ["transfer-encoding", "chunked"],
    ["upgrade", "h2c"],
    ["te", "trailers"],
    ["trailer", "x"],
    ["proxy-authenticate", "Basic"],
    ["x-remote", "1"],
  ], "*");
  assert.deepEqual(sorted(pairs), [
    "access-control-allow-origin: *",
    "access-control-expose-headers: *",
    "x-remote: 1",
  ]);
});

Deno.test("callerHeaderPairs() sets the CORS headers, the remote's own replaced", () => {
  const remote: [string, string][] = [
    ["access-control-allow-origin", "https://other.example"],
    ["access-control-expose-headers", "x-secret"],
    ["x-b", "2"],
    ["x-a", "1"],
    ["x-a", "3"],
  ];
  assert.deepEqual(sorted(callerHeaderPairs(remote, "https://app.example")), [
    "access-control-allow-origin: https://app.example",
    "access-control-expose-headers: x-a, x-b",
    "x-a: 1",
    "x-a: 3",
    "x-b: 2",
  ]);
});

Deno.test("callerHeaderPairs() leaves the pairs it was given unchanged", () => {
  const pairs: [string, string][] = [["connection", "close"], ["x", "1"]];
  callerHeaderPairs(pairs, "*");
  assert.deepEqual(pairs, [["connection", "close"], ["x", "1"]]);
});

Deno.test("callerHeaderPairs() drops a length sent beside a transfer coding", () => {
  const pairs = callerHeaderPairs([
    ["content-length", "3"],
    ["transfer-encoding", "chunked"],
  ], "*");
  assert.ok(!pairs.some(([name]) => name === "content-length"));
});

Deno.test("remoteRequestHeaders() does not pass the caller's cookies on", () => {
  const pairs = remoteRequestHeaders(
    new Headers([
      ["cookie", "session=of-another-app"],
      ["cookie2", '$Version="1"'],
      ["authorization", "Bearer for-the-remote"],
      ["x-a", "1"],
    ]),
    "1.1 proxy",
  );
  assert.deepEqual(pairs, [
    ["authorization", "Bearer for-the-remote"],
    ["x-a", "1"],
    ["via", "1.1 proxy"],
  ]);
});

Deno.test("callerHeaderPairs() drops the remote's cookies", () => {
  const pairs = callerHeaderPairs([
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

Deno.test("callerHeaderPairs() passes the locations through relocate", () => {
  const remote: [string, string][] = [
    ["location", "/base/x"],
    ["content-location", "/base/y"],
    ["x-location", "/base/z"],
  ];
  const relocate = (value: string) => value.replace("/base", "/api");
  const answer = new Headers(callerHeaderPairs(remote, "*", relocate));
  assert.equal(answer.get("location"), "/api/x");
  assert.equal(answer.get("content-location"), "/api/y");
  assert.equal(answer.get("x-location"), "/base/z");
  assert.equal(remote[0]![1], "/base/x");
});

Deno.test("callerHeaderPairs() drops coding and length of a decoded body only", () => {
  const remote: [string, string][] = [
    ["content-encoding", "deflate"],
    ["content-length", "40"],
    ["etag", '"a"'],
  ];
  assert.deepEqual(sorted(callerHeaderPairs(remote, "*", undefined, true)), [
    "access-control-allow-origin: *",
    "access-control-expose-headers: *",
    'etag: "a"',
  ]);
  assert.deepEqual(sorted(callerHeaderPairs(remote, "*")), [
    "access-control-allow-origin: *",
    "access-control-expose-headers: *",
    "content-encoding: deflate",
    "content-length: 40",
    'etag: "a"',
  ]);
});
