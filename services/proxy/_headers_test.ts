import assert from "node:assert/strict";
import {
  callerHeaderPairs,
  prepareCallerHeaders,
  remoteRequestHeaders,
} from "./_headers.ts";

const CASES: [string, string][][] = [
  [["content-type", "application/json"], ["content-length", "12"]],
  [
    ["connection", "keep-alive, X-Private"],
    ["x-private", "hop"],
    ["keep-alive", "timeout=5"],
    ["transfer-encoding", "chunked"],
    ["x-remote", "1"],
  ],
  [["content-encoding", "gzip"], ["content-length", "40"], ["etag", '"a"']],
  [["content-encoding", "zstd"], ["content-length", "40"]],
  [
    ["access-control-allow-origin", "https://other.example"],
    ["access-control-expose-headers", "x-secret"],
    ["set-cookie", "a=1"],
    ["set-cookie", "b=2"],
    ["x-b", "2"],
    ["x-a", "1"],
  ],
  [["upgrade", "h2c"], ["te", "trailers"], ["trailer", "x"], ["date", "now"]],
  [["content-length", "3"], ["transfer-encoding", "chunked"], ["x-c", "1"]],
];

/** The headers' content, order aside (the order of lines carries no meaning). */
function sorted(pairs: Iterable<[string, string]>): string[] {
  return [...pairs].map(([name, value]) => `${name}: ${value}`).sort();
}

Deno.test("callerHeaderPairs() gives the headers prepareCallerHeaders() leaves", async (t) => {
  for (const allowOrigin of ["*", "https://app.example"]) {
    for (const pairs of CASES) {
      await t.step(`${allowOrigin} ${pairs.map(([n]) => n).join(",")}`, () => {
        const headers = new Headers(pairs);
        prepareCallerHeaders(headers, allowOrigin);
        const response = new Response(null, {
          headers: callerHeaderPairs(pairs, allowOrigin),
        });
        assert.deepEqual(sorted(response.headers), sorted(headers));
      });
    }
  }
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

Deno.test("callerHeaderPairs() and prepareCallerHeaders() drop the remote's cookies", () => {
  const remote: [string, string][] = [
    ["set-cookie", "a=1; Path=/"],
    ["set-cookie", "b=2"],
    ["set-cookie2", "c=3"],
    ["x-a", "1"],
  ];
  const headers = new Headers(remote);
  prepareCallerHeaders(headers, "https://app.example");
  const pairs = callerHeaderPairs(remote, "https://app.example");
  for (const answer of [[...headers], pairs]) {
    assert.deepEqual(
      answer.filter(([name]) => name.includes("cookie")),
      [],
    );
    assert.ok(answer.some(([name]) => name === "x-a"));
  }
  assert.equal(headers.get("access-control-expose-headers"), "x-a");
});

Deno.test("callerHeaderPairs() and prepareCallerHeaders() pass the locations through relocate", () => {
  const remote: [string, string][] = [
    ["location", "/base/x"],
    ["content-location", "/base/y"],
    ["x-location", "/base/z"],
  ];
  const relocate = (value: string) => value.replace("/base", "/api");
  const headers = new Headers(remote);
  prepareCallerHeaders(headers, "*", relocate);
  const pairs = callerHeaderPairs(remote, "*", relocate);
  for (const answer of [new Headers(pairs), headers]) {
    assert.equal(answer.get("location"), "/api/x");
    assert.equal(answer.get("content-location"), "/api/y");
    assert.equal(answer.get("x-location"), "/base/z");
  }
  assert.equal(remote[0]![1], "/base/x");
});

Deno.test("prepareCallerHeaders() keeps the codings fetch does not decode, callerHeaderPairs() drops what the pooled client decodes", () => {
  for (const coding of ["deflate", "x-gzip"]) {
    const remote: [string, string][] = [
      ["content-encoding", coding],
      ["content-length", "40"],
    ];
    const headers = new Headers(remote);
    prepareCallerHeaders(headers, "*");
    assert.equal(headers.get("content-encoding"), coding);
    assert.equal(headers.get("content-length"), "40");
    const pairs = callerHeaderPairs(remote, "*");
    assert.ok(!pairs.some(([name]) => name.startsWith("content-")), coding);
  }
  for (const coding of ["gzip", "br"]) {
    const headers = new Headers([["content-encoding", coding]]);
    prepareCallerHeaders(headers, "*");
    assert.equal(headers.get("content-encoding"), null, coding);
  }
});
