import assert from "node:assert/strict";
import { allowOrigin, parseAllowOrigin } from "./allow_origin.ts";

Deno.test("parseAllowOrigin() takes * and one origin as browsers write it", () => {
  assert.equal(parseAllowOrigin("*"), "*");
  for (
    const value of [
      "https://app.example.com",
      "http://127.0.0.1:5173",
      "http://[::1]:8080",
    ]
  ) {
    assert.deepEqual(parseAllowOrigin(value), [value]);
  }
});

Deno.test("parseAllowOrigin() takes a comma-separated list, spaces around commas ignored", () => {
  assert.deepEqual(
    parseAllowOrigin(
      "https://a.example, http://127.0.0.1:5173,https://a.example",
    ),
    ["https://a.example", "http://127.0.0.1:5173"],
  );
});

Deno.test("parseAllowOrigin() refuses what a browser would never match", () => {
  const cases: [string, RegExp][] = [
    ["€", /"€" is not an origin/],
    ["app.example.com", /expected \* or origins/],
    ["https://App.Example.com/", /did you mean "https:\/\/app\.example\.com"/],
    [
      "https://app.example.com:443",
      /did you mean "https:\/\/app\.example\.com"/,
    ],
    ["https://app.example.com/path", /did you mean/],
    ["ftp://files.example", /not an origin/],
    ["https://a.example https://b.example", /holds a space/],
    ["*,https://a.example", /use \* alone/],
    ["https://a.example,,https://b.example", /an entry is empty/],
  ];
  for (const [value, message] of cases) {
    assert.throws(() => parseAllowOrigin(value), message, value);
  }
});

Deno.test("allowOrigin() keeps its default and shows a list as written", () => {
  const setting = allowOrigin({ description: "Origins", default: "*" });
  assert.equal(setting.read(undefined), "*");
  assert.equal(setting.defaultText, "*");
});
