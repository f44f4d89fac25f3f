import assert from "node:assert/strict";
import { parseAllowOrigin } from "./allow_origin.ts";

Deno.test("parseAllowOrigin() takes * and one origin as browsers write it", () => {
  for (
    const value of [
      "*",
      "https://app.example.com",
      "http://127.0.0.1:5173",
      "http://[::1]:8080",
    ]
  ) {
    assert.equal(parseAllowOrigin(value), value);
  }
});

Deno.test("parseAllowOrigin() refuses what a browser would never match", () => {
  const cases: [string, RegExp][] = [
    ["€", /expected \* or one origin/],
    ["app.example.com", /expected/],
    ["https://App.Example.com/", /did you mean "https:\/\/app\.example\.com"/],
    [
      "https://app.example.com:443",
      /did you mean "https:\/\/app\.example\.com"/,
    ],
    ["https://app.example.com/path", /did you mean/],
    ["ftp://files.example", /expected/],
    ["", /expected/],
  ];
  for (const [value, message] of cases) {
    assert.throws(() => parseAllowOrigin(value), message, value);
  }
});

Deno.test("parseAllowOrigin() says a list is not supported, with no hint", () => {
  for (
    const value of [
      "http://a.com,http://b.com",
      "https://a.example, https://b.example",
      "https://a.example https://b.example",
      "https://a.example\thttps://b.example",
      "*,https://a.example",
    ]
  ) {
    assert.throws(
      () => parseAllowOrigin(value),
      (error: Error) =>
        /only one origin \(or \*\) is supported/.test(error.message) &&
        !error.message.includes("did you mean"),
      value,
    );
  }
});
