import assert from "node:assert/strict";
import { createOriginPolicy } from "./origin_policy.ts";

const from = (origin?: string) =>
  new Request("http://localhost/api/x", {
    headers: origin === undefined ? {} : { origin },
  });

Deno.test("createOriginPolicy(*) lets everything through unchanged", () => {
  const policy = createOriginPolicy("*");
  assert.equal(policy.fallback, "*");
  assert.equal(policy.refuse(from("https://any.example")), undefined);
  const response = new Response("x");
  assert.equal(policy.apply(from("https://any.example"), response), response);
  assert.equal(response.headers.has("vary"), false);
});

Deno.test("createOriginPolicy(list) echoes a listed origin with Vary: Origin", () => {
  const policy = createOriginPolicy([
    "https://a.example",
    "http://b.example:8080",
  ]);
  assert.equal(policy.fallback, "https://a.example");
  const request = from("http://b.example:8080");
  assert.equal(policy.refuse(request), undefined);
  const response = policy.apply(
    request,
    new Response("x", {
      headers: {
        "access-control-allow-origin": "https://a.example",
        vary: "Accept-Language",
      },
    }),
  );
  assert.equal(
    response.headers.get("access-control-allow-origin"),
    "http://b.example:8080",
  );
  assert.equal(response.headers.get("vary"), "Accept-Language, Origin");
});

Deno.test("createOriginPolicy(list) refuses an unlisted origin with 403 and no ACAO", async () => {
  const policy = createOriginPolicy(["https://a.example"]);
  for (
    const origin of ["https://evil.example", "https://a.example.evil", "null"]
  ) {
    const refused = policy.refuse(from(origin));
    assert.ok(refused, origin);
    assert.equal(refused.status, 403);
    assert.deepEqual(await refused.json(), {
      message:
        `Origin "${origin}" is not allowed: PROXY_ALLOW_ORIGIN does not list it`,
    });
    const refusal = policy.apply(from(origin), refused);
    assert.equal(refusal.headers.has("access-control-allow-origin"), false);
    assert.equal(refusal.headers.get("vary"), "Origin");
  }
});

Deno.test("createOriginPolicy(list) serves a request without Origin as before", () => {
  const policy = createOriginPolicy(["https://a.example"]);
  assert.equal(policy.refuse(from()), undefined);
  const response = policy.apply(
    from(),
    new Response("x", {
      headers: { "access-control-allow-origin": "https://a.example" },
    }),
  );
  assert.equal(
    response.headers.get("access-control-allow-origin"),
    "https://a.example",
  );
  assert.equal(response.headers.get("vary"), "Origin");
});

Deno.test("createOriginPolicy(list) copies immutable headers", () => {
  const policy = createOriginPolicy(["https://a.example"]);
  const response = policy.apply(
    from("https://a.example"),
    Response.redirect("http://localhost/x", 302),
  );
  assert.equal(response.status, 302);
  assert.equal(
    response.headers.get("access-control-allow-origin"),
    "https://a.example",
  );
});
