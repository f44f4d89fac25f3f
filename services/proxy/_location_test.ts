import assert from "node:assert/strict";
import { proxiedLocation } from "./_location.ts";
import { parseRoutes } from "./routes.ts";

const [api, root] = parseRoutes(
  "api=https://upstream.example/base,root=http://local.example:8080",
);
const TARGET = "https://upstream.example/base/a/b?q=1";

Deno.test("proxiedLocation() maps a URL within the base onto the proxy's path", () => {
  const cases: [string, string][] = [
    ["/base/target", "/api/target"],
    ["/base/target?x=1&y=2#part", "/api/target?x=1&y=2#part"],
    ["c", "/api/a/c"],
    ["../c", "/api/c"],
    ["?page=2", "/api/a/b?page=2"],
    ["/base", "/api"],
    ["/base/k?", "/api/k"],
    ["/base/k#", "/api/k"],
    ["/base/", "/api/"],
    ["https://upstream.example/base/target", "/api/target"],
    ["https://UPSTREAM.example:443/base/target", "/api/target"],
    ["//upstream.example/base/target", "/api/target"],
  ];
  for (const [value, expected] of cases) {
    assert.equal(proxiedLocation(value, api!, TARGET), expected, value);
  }
});

Deno.test("proxiedLocation() maps any path of a base at the root", () => {
  const target = "http://local.example:8080/x";
  assert.equal(
    proxiedLocation("/login?next=/", root!, target),
    "/root/login?next=/",
  );
  assert.equal(
    proxiedLocation("http://local.example:8080/", root!, target),
    "/root/",
  );
});

Deno.test("proxiedLocation() makes a relative URL outside the base absolute", () => {
  const cases: [string, string][] = [
    ["/login", "https://upstream.example/login"],
    ["/basement/x", "https://upstream.example/basement/x"],
    ["../../x", "https://upstream.example/x"],
    ["//elsewhere.example/base", "https://elsewhere.example/base"],
  ];
  for (const [value, expected] of cases) {
    assert.equal(proxiedLocation(value, api!, TARGET), expected, value);
  }
});

Deno.test("proxiedLocation() never gives a path the proxy would not send there", () => {
  const [slashed] = parseRoutes("api=http://h.example/base/");
  const target = "http://h.example/base/x";
  // The proxy sends /api to /base/: an upstream dropping the slash would loop.
  assert.equal(
    proxiedLocation("/base", slashed!, target),
    "http://h.example/base",
  );
  assert.equal(proxiedLocation("/base/y", slashed!, target), "/api/y");
  // Paths the proxy refuses: an encoded slash, an @, an empty segment.
  for (const path of ["/base/a%2Fb", "/base/users/@me", "/base//x"]) {
    assert.equal(
      proxiedLocation(path, slashed!, target),
      `http://h.example${path}`,
      path,
    );
  }
});

Deno.test("proxiedLocation() leaves an absolute URL outside the base as it is", () => {
  for (
    const value of [
      "http://upstream.example/base/target",
      "https://upstream.example:8443/base/target",
      "https://elsewhere.example/base/target",
      "mailto:someone@upstream.example",
      "http://[not a host/",
    ]
  ) {
    assert.equal(proxiedLocation(value, api!, TARGET), value);
  }
});
