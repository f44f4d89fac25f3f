import assert from "node:assert/strict";
import { deletedReplyWarning } from "./deleted_reply_warning.ts";

Deno.test("deletedReplyWarning()", async (t) => {
  await t.step("names the message, the status and what keeps it", () => {
    assert.equal(
      deletedReplyWarning("m-1", { status: 401 }),
      "Endpoint returned 401 Unauthorized for message m-1: deleted (any status deletes the message; list 401 in FORWARD_RETRY_STATUSES to keep such messages)",
    );
    assert.equal(
      deletedReplyWarning("m-2", { status: 599 }),
      "Endpoint returned 599 for message m-2: deleted (any status deletes the message; list 599 in FORWARD_RETRY_STATUSES to keep such messages)",
    );
  });

  await t.step(
    "gives a redirect's Location and says it is not followed",
    () => {
      assert.equal(
        deletedReplyWarning("m-3", {
          status: 301,
          location: "https://new.example.com/in",
        }),
        'Endpoint returned 301 Moved Permanently (Location "https://new.example.com/in") for message m-3: deleted, the redirect not followed (any status deletes the message; set HTTP_ENDPOINT to the new address, or list 301 in FORWARD_RETRY_STATUSES to keep such messages)',
      );
      assert.match(
        deletedReplyWarning("m-4", { status: 307 }),
        /^Endpoint returned 307 Temporary Redirect \(no Location\) for message m-4: deleted, the redirect not followed/,
      );
    },
  );

  await t.step("quotes a hostile Location on one short line", () => {
    const line = deletedReplyWarning("m-5", {
      status: 302,
      location: `x\u001b[31m\u0085\u2028${"y".repeat(5000)}`,
    });
    assert.match(line, /Location "x\\u001b\[31m\\u0085\\u2028y/);
    assert.ok(
      [...line].every((c) => c >= " " && (c < "\u0080" || c > "\u009f")),
    );
    assert.ok(!line.includes("\u2028"));
    assert.ok(line.length < 500, `${line.length} characters`);
  });
});
