import assert from "node:assert/strict";
import { replyText } from "./reply_text.ts";

Deno.test("replyText() reads a reply whole when it is within the limit", async () => {
  assert.equal(await replyText(Response.json({ ok: "✓" }), 1024), '{"ok":"✓"}');
  assert.equal(await replyText(new Response(null, { status: 204 }), 10), "");
});

Deno.test("replyText() stops reading an endless reply at the limit", async () => {
  let pulls = 0;
  let cancelled = false;
  const chunk = new TextEncoder().encode("a".repeat(1000));
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulls++;
      controller.enqueue(chunk);
    },
    cancel() {
      cancelled = true;
    },
  });
  const text = await replyText(new Response(endless), 2500);
  assert.equal(text, "a".repeat(2500));
  assert.ok(cancelled, "the stream is cancelled");
  assert.ok(pulls <= 5, `read ${pulls} chunks`);
});
