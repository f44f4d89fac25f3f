import assert from "node:assert/strict";
import { proxiedLocation } from "./_location.ts";
import { parseRoutes } from "./routes.ts";

const [api, root] = parseRoutes(
  "api=https://remote.example/base,root=http://local.example:8080",
);
const TARGET = "https://remote.example/base/a/b?q=1";

Deno.test("proxiedLocation() maps a URL within the base onto the proxy's path", () => {
  const cases: [string, string][] = [
    ["/base/target", "/api/target"],
    ["/base/target?x=1&y=2#part", "/api/target?x=1&y=2#part"],
    ["c", "/api/a/c"],
    ["../c", "/api/c"],
    ["?page=2", "/api/a/b?page=2"],
    ["/base", "/api"],
    ["/base/", "/api/"],
    ["https://remote.example/base/target", "/api/target"],
    ["https://REMOTE.example:443/base/target", "/api/target"],
    ["//remote.example/base/target", "/api/target"],
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

Deno.test("proxiedLocation() leaves a URL outside the base as it is", () => {
  for (
    const value of [
      "/other",
      "/basement/x",
      "../../x",
      "http://remote.example/base/target",
      "https://remote.example:8443/base/target",
      "https://elsewhere.example/base/target",
      "//elsewhere.example/base",
      "mailto:someone@remote.example",
      "http://[not a host/",
    ]
  ) {
    assert.equal(proxiedLocation(value, api!, TARGET), value);
  }
});
