import assert from "node:assert/strict";
import { createBearerCheck } from "./bearer.ts";

Deno.test("createBearerCheck() accepts only `Bearer <token>` exactly", async (t) => {
  const isValid = createBearerCheck("s3cret-token");
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
