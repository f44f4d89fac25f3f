import assert from "node:assert/strict";
import { callerHeaderPairs, prepareCallerHeaders } from "./_headers.ts";

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
