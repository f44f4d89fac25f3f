import assert from "node:assert/strict";
import { parseSettings, type SettingsError } from "../../lib/settings.ts";
import { parseRoutes, proxyRoutes } from "./routes.ts";

Deno.test("parseRoutes() reads name=URL entries in order", () => {
  const routes = parseRoutes(
    " api=https://upstream.example/base/ , other=http://host:8080/api,root=http://h",
  );
  assert.deepEqual(routes, [
    {
      name: "api",
      base: "https://upstream.example/base/",
      origin: "https://upstream.example",
      prefix: "/base",
    },
    {
      name: "other",
      base: "http://host:8080/api",
      origin: "http://host:8080",
      prefix: "/api",
    },
    { name: "root", base: "http://h", origin: "http://h", prefix: "" },
  ]);
  assert.ok(Object.isFrozen(routes) && Object.isFrozen(routes[0]));
});

Deno.test("parseRoutes() keeps an equals sign inside the URL path", () => {
  const [route] = parseRoutes("a=http://h/x=y");
  assert.equal(route?.prefix, "/x=y");
});

Deno.test("parseRoutes() reports every malformed entry at once", async (t) => {
  const cases: [string, RegExp][] = [
    ["", /at least one/],
    [" , ", /at least one/],
    ["api", /entry "api" is not name=URL/],
    ["=http://h", /name "" /],
    ["a/b=http://h", /name "a\/b"/],
    [".hidden=http://h", /not starting with a dot/],
    ["..=http://h", /name "\.\."/],
    ["a b=http://h", /name "a b"/],
    ["api=notaurl", /URL "notaurl" of "api" is not an absolute http\(s\) URL/],
    ["api=ftp://h/x", /is not an absolute http\(s\) URL/],
    ["api=", /URL "" of "api"/],
    ["api=http://h/x?key=1", /must not have a query string/],
    ["api=http://h/x#top", /must not have a query string/],
    ["api=http://h,api=http://g", /name "api" is registered twice/],
  ];
  for (const [raw, expected] of cases) {
    await t.step(JSON.stringify(raw), () => {
      assert.throws(() => parseRoutes(raw), expected);
    });
  }
  await t.step("several problems in one message", () => {
    assert.throws(
      () => parseRoutes("x,y=ftp://h,z=http://ok"),
      /entry "x" is not name=URL; URL "ftp:\/\/h" of "y"/,
    );
  });
});

Deno.test("parseRoutes() never quotes a URL carrying credentials", () => {
  assert.throws(
    () => parseRoutes("api=http://user:hunter2@h/x"),
    (error: Error) =>
      /must not carry credentials/.test(error.message) &&
      !error.message.includes("hunter2"),
  );
});

Deno.test("proxyRoutes() is required and reports under PROXY_ROUTES", () => {
  const schema = { PROXY_ROUTES: proxyRoutes({ description: "Routes" }) };
  assert.throws(
    () => parseSettings(schema, {}),
    (error: SettingsError) =>
      error.problems[0] === "Missing PROXY_ROUTES: Routes",
  );
  assert.throws(
    () => parseSettings(schema, { PROXY_ROUTES: "a=http://u:secret@h" }),
    (error: SettingsError) =>
      error.problems[0]!.startsWith("Invalid PROXY_ROUTES: ") &&
      !error.message.includes("secret"),
  );
  const settings = parseSettings(schema, { PROXY_ROUTES: "a=http://h/p" });
  assert.equal(settings.PROXY_ROUTES[0]?.prefix, "/p");
});
