import assert from "node:assert/strict";
import { createMessageHeaders } from "./message_headers.ts";

const message = { id: "m1", body: "hi", receiptHandle: "r" };

Deno.test("createMessageHeaders()", async (t) => {
  await t.step("is undefined with nothing to add", () => {
    assert.equal(createMessageHeaders({}), undefined);
  });

  await t.step("puts the sqsd headers before the signature", () => {
    const headersOf = createMessageHeaders({
      sqsd: (m) => [["X-Aws-Sqsd-Msgid", m.id]],
      sign: (id, body) => [["webhook-id", id], ["webhook-signature", body]],
    });
    assert.deepEqual(headersOf?.(message)('"hi"'), [
      ["X-Aws-Sqsd-Msgid", "m1"],
      ["webhook-id", "m1"],
      ["webhook-signature", '"hi"'],
    ]);
  });
});
