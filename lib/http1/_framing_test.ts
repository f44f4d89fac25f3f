import assert from "node:assert/strict";
import { chunkSize, framingOf } from "./_framing.ts";
import { InvalidFramingError } from "./errors.ts";

const head = (headers: [string, string][], status = 200, http10 = false) => ({
  http10,
  status,
  statusText: "",
  headers,
});

Deno.test("framingOf() reads the framing RFC 9112 6.3 gives", async (t) => {
  const cases: [string, ReturnType<typeof head>, string, unknown][] = [
    ["a length", head([["content-length", "5"]]), "GET", {
      kind: "length",
      length: 5,
      keepAlive: true,
    }],
    ["leading zeros", head([["content-length", "005"]]), "GET", {
      kind: "length",
      length: 5,
      keepAlive: true,
    }],
    ["chunked last", head([["transfer-encoding", "gzip, chunked"]]), "GET", {
      kind: "chunked",
      keepAlive: true,
    }],
    [
      "chunked over two lines",
      head([
        ["transfer-encoding", "gzip"],
        ["transfer-encoding", "chunked"],
      ]),
      "GET",
      { kind: "chunked", keepAlive: true },
    ],
    [
      "chunked not last: until close",
      head([
        ["transfer-encoding", "chunked, gzip"],
      ]),
      "GET",
      { kind: "close", keepAlive: false },
    ],
    ["no framing: until close", head([]), "GET", {
      kind: "close",
      keepAlive: false,
    }],
    ["HEAD", head([["content-length", "5"]]), "HEAD", {
      kind: "none",
      keepAlive: true,
    }],
    ["204", head([["content-length", "5"]], 204), "GET", {
      kind: "none",
      keepAlive: true,
    }],
    ["304", head([], 304), "GET", { kind: "none", keepAlive: true }],
    ["1xx", head([], 103), "GET", { kind: "none", keepAlive: true }],
    [
      "Connection: close",
      head([
        ["connection", "keep-alive, close"],
        ["content-length", "1"],
      ]),
      "GET",
      { kind: "length", length: 1, keepAlive: false },
    ],
    ["HTTP/1.0", head([["content-length", "1"]], 200, true), "GET", {
      kind: "length",
      length: 1,
      keepAlive: false,
    }],
  ];
  for (const [name, given, method, expected] of cases) {
    await t.step(
      name,
      () => assert.deepEqual(framingOf(given, method), expected),
    );
  }
});

Deno.test("framingOf() refuses a framing two readers could read two ways", async (t) => {
  const cases: [string, [string, string][], RegExp][] = [
    ["an empty length", [["content-length", ""]], /not a number/],
    ["+5", [["content-length", "+5"]], /not a number/],
    ["0x5", [["content-length", "0x5"]], /not a number/],
    ["5.0", [["content-length", "5.0"]], /not a number/],
    ["5, 5", [["content-length", "5, 5"]], /not a number/],
    ["a trailing blank", [["content-length", "5 "]], /not a number/],
    ["past 2^53", [["content-length", "9007199254740993"]], /not a number/],
    [
      "two lengths",
      [["content-length", "5"], ["content-length", "5"]],
      /several Content-Length/,
    ],
    [
      "a length beside chunked",
      [["content-length", "5"], ["transfer-encoding", "chunked"]],
      /Content-Length beside Transfer-Encoding/,
    ],
    [
      "a length beside any transfer coding",
      [["transfer-encoding", "identity"], ["content-length", "5"]],
      /Content-Length beside Transfer-Encoding/,
    ],
    ["chunked twice", [["transfer-encoding", "chunked, chunked"]], /twice/],
    ["an empty coding list", [["transfer-encoding", " , "]], /empty/],
  ];
  for (const [name, headers, expected] of cases) {
    await t.step(name, () => {
      for (const method of ["GET", "HEAD"]) {
        assert.throws(
          () => framingOf(head(headers), method),
          (error: Error) =>
            error instanceof InvalidFramingError &&
            expected.test(error.message),
        );
      }
    });
  }
});

Deno.test("chunkSize() reads strict hex with well-formed extensions only", () => {
  for (
    const [line, size] of [
      ["5", 5],
      ["0005", 5],
      ["a", 10],
      ["FF", 255],
      ["0", 0],
      ['5;name=value;flag;q="a \\" b"', 5],
      ["fffffffffffff", 0xfffffffffffff],
    ] as const
  ) {
    assert.equal(chunkSize(line), size, line);
  }
  for (
    const line of [
      "",
      "5 ",
      "5 ;a",
      "5; a",
      "5;a= b",
      "5 junk",
      "0x5",
      "+5",
      "-5",
      "g",
      "5;",
      '5;a="unclosed',
      "10000000000000",
    ]
  ) {
    assert.throws(() => chunkSize(line), InvalidFramingError, line);
  }
});
