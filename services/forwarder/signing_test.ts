import assert from "node:assert/strict";
import { Webhook } from "standardwebhooks";
import { createSigner } from "./signing.ts";
import { parseSigningSecret } from "./signing_secret.ts";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

Deno.test("createSigner()", async (t) => {
  const reference = new Webhook(SECRET);
  const sign = createSigner(parseSigningSecret(SECRET));

  await t.step("signs as the reference implementation verifies", () => {
    for (const body of ['"hello"', "raw é ✓ 日本語 \u{1F600}", "", "a.b.c"]) {
      const headers = Object.fromEntries(sign("msg-1", body));
      assert.equal(headers["webhook-id"], "msg-1");
      reference.verify(body, headers, { jsonParse: false });
    }
  });

  await t.step("gives the same signature as the reference's sign()", () => {
    const at = 1_764_086_400_000;
    const headers = Object.fromEntries(
      createSigner(parseSigningSecret(SECRET), () => at)("id-7", "body ✓"),
    );
    assert.equal(headers["webhook-timestamp"], "1764086400");
    assert.equal(
      headers["webhook-signature"],
      reference.sign("id-7", new Date(at), "body ✓"),
    );
  });

  await t.step("a signature fails for another body, id or secret", () => {
    const headers = Object.fromEntries(sign("msg-1", '"hello"'));
    assert.throws(() => reference.verify('"hellO"', headers), /signature/);
    assert.throws(() =>
      reference.verify('"hello"', { ...headers, "webhook-id": "msg-2" })
    );
    const other = new Webhook("whsec_" + btoa("another key of 24 bytes!"));
    assert.throws(() => other.verify('"hello"', headers));
  });
});
