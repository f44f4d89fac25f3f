import assert from "node:assert/strict";
import { collected } from "./_collected_body.ts";

const parts = (...texts: string[]) =>
  ReadableStream.from(texts.map((text) => new TextEncoder().encode(text)));

Deno.test("collected() passes the body on and hands over the whole of it at its end", async () => {
  let whole: Uint8Array | undefined | null = null;
  const body = collected(parts("ab", "cd"), 10, (bytes) => whole = bytes);
  assert.equal(await new Response(body).text(), "abcd");
  assert.equal(new TextDecoder().decode(whole!), "abcd");
});

Deno.test("collected() gives up past the limit but still passes everything on", async () => {
  let whole: Uint8Array | undefined | null = null;
  const body = collected(parts("abc", "def"), 5, (bytes) => whole = bytes);
  assert.equal(await new Response(body).text(), "abcdef");
  assert.equal(whole, undefined);
});

Deno.test("collected() hands over nothing when the body breaks", async () => {
  let whole: Uint8Array | undefined | null = null;
  let sent = false;
  const broken = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(new Error("cut"));
      sent = true;
      controller.enqueue(new Uint8Array([1]));
    },
  });
  const body = collected(broken, 10, (bytes) => whole = bytes);
  await assert.rejects(new Response(body).arrayBuffer());
  assert.equal(whole, undefined);
});
