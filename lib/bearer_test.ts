import assert from "node:assert/strict";
import { Hono } from "hono";
import { createBearerCheck, requireBearer } from "./bearer.ts";

Deno.test("createBearerCheck() with exact case accepts only `Bearer <token>` exactly", async (t) => {
  const isValid = createBearerCheck("s3cret-token", "exact");
  await t.step("the valid header", () => {
    assert.equal(isValid("Bearer s3cret-token"), true);
  });
  for (
    const header of [
      undefined,
      null,
      "",
      "s3cret-token",
      "Bearer",
      "Bearer ",
      "bearer s3cret-token",
      "BEARER s3cret-token",
      "Basic s3cret-token",
      "Bearer  s3cret-token",
      "Bearer s3cret-token ",
      "Bearer s3cret-tokeN",
      "Bearer s3cret-toke",
      "Bearer s3cret-token2",
      "Token s3cret-token",
    ]
  ) {
    await t.step(`rejects ${JSON.stringify(header)}`, () => {
      assert.equal(isValid(header), false);
    });
  }
});

Deno.test("createBearerCheck() with any case reads the header as RFC 9110 does", async (t) => {
  const isValid = createBearerCheck("s3cret-token", "any-case");
  for (
    const header of [
      "Bearer s3cret-token",
      "bearer s3cret-token",
      "BEARER s3cret-token",
      "Bearer   s3cret-token",
      "Bearer s3cret-token ",
    ]
  ) {
    await t.step(`accepts ${JSON.stringify(header)}`, () => {
      assert.equal(isValid(header), true);
    });
  }
  for (
    const header of [
      undefined,
      null,
      "",
      "s3cret-token",
      "Bearer",
      "Bearer ",
      "Bearers3cret-token",
      "Basic s3cret-token",
      "Bearer s3cret-tokeN",
      "Bearer s3cret-token extra",
      " Bearer s3cret-token",
    ]
  ) {
    await t.step(`rejects ${JSON.stringify(header)}`, () => {
      assert.equal(isValid(header), false);
    });
  }
});

Deno.test("requireBearer() responds 401 with a challenge unless the token comes", async (t) => {
  const app = new Hono();
  app.use(requireBearer({ token: "tok", schemeCase: "any-case", realm: "x" }));
  app.get("/", (c) => c.text("in"));
  await t.step("without the token", async () => {
    const response = await app.request("/");
    assert.equal(response.status, 401);
    assert.equal(response.headers.get("www-authenticate"), 'Bearer realm="x"');
    assert.deepEqual(await response.json(), {
      message: "Missing or invalid token: send Authorization: Bearer <token>",
    });
  });
  await t.step("with the token", async () => {
    const response = await app.request("/", {
      headers: { authorization: "bearer tok" },
    });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), "in");
  });
  await t.step("a custom response", async () => {
    const custom = new Hono();
    custom.use(requireBearer({
      token: "tok",
      schemeCase: "exact",
      unauthorized: () => new Response("no", { status: 401 }),
    }));
    custom.get("/", (c) => c.text("in"));
    const response = await custom.request("/", {
      headers: { authorization: "bearer tok" },
    });
    assert.equal(response.status, 401);
    assert.equal(response.headers.get("www-authenticate"), "Bearer");
    assert.equal(await response.text(), "no");
  });
});
