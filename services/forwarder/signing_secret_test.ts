import assert from "node:assert/strict";
import {
  parseSigningSecret,
  signingSecret,
  signingSecretFile,
} from "./signing_secret.ts";

Deno.test("parseSigningSecret()", async (t) => {
  await t.step("decodes whsec_ and base64, padded or not", () => {
    const bytes = new TextEncoder().encode("secret");
    assert.deepEqual(parseSigningSecret("whsec_c2VjcmV0"), bytes);
    const five = new TextEncoder().encode("secre");
    assert.deepEqual(parseSigningSecret("whsec_c2VjcmU="), five);
    assert.deepEqual(parseSigningSecret("whsec_c2VjcmU"), five);
  });

  await t.step("refuses other shapes without quoting them", () => {
    let message: string | undefined;
    for (
      const bad of [
        "c2VjcmV0",
        "whsec_",
        "whsec_not base64!",
        "whsec_c2VjcmV0=",
        "WHSEC_c2VjcmV0",
        "whsec_c",
      ]
    ) {
      // One message whatever the value: nothing of it is repeated.
      assert.throws(
        () => parseSigningSecret(bad),
        (error: Error) => {
          message ??= error.message;
          return error.message === message &&
            /^expected "whsec_" followed by the base64/.test(message);
        },
        bad,
      );
    }
  });
});

Deno.test("signingSecret() is a secret setting", () => {
  const setting = signingSecret({ description: "Key" });
  assert.equal(setting.secret, true);
  assert.equal(setting.required, true);
});

Deno.test("signingSecretFile()", async (t) => {
  const files: Record<string, string> = {
    "/run/secrets/good": "whsec_c2VjcmV0\n",
    "/run/secrets/bad": "hunter2\n",
  };
  const read = (path: string) => {
    const text = files[path];
    if (text === undefined) throw new Error(`No such file: ${path}`);
    return text;
  };
  const setting = signingSecretFile({ description: "Key file" }, read);

  await t.step("reads the secret from the file, its line break ignored", () => {
    assert.deepEqual(
      setting.read("/run/secrets/good"),
      new TextEncoder().encode("secret"),
    );
  });

  await t.step("says what is wrong without the file's content", () => {
    assert.throws(
      () => setting.read("/run/secrets/bad"),
      (error: Error) =>
        /does not hold a signing secret/.test(error.message) &&
        !error.message.includes("hunter2"),
    );
    assert.throws(() => setting.read("/nowhere"), /cannot read the file/);
  });
});
