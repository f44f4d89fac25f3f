import assert from "node:assert/strict";
import {
  BodyTooLargeError,
  boundedBytes,
  readResponseText,
  responseBytes,
} from "./bounded_body.ts";

Deno.test("boundedBytes() reads a body within its bound whole", async () => {
  assert.deepEqual(
    await boundedBytes(new Response("hello").body, 5),
    new TextEncoder().encode("hello"),
  );
  assert.deepEqual(await boundedBytes(null, 5), new Uint8Array(0));
});

Deno.test("boundedBytes() fails past its bound and cancels the body, however long it is", async () => {
  let cancelled: unknown;
  let produced = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      produced += 4096;
      controller.enqueue(new Uint8Array(4096));
    },
    cancel(reason) {
      cancelled = reason;
    },
  });
  await assert.rejects(
    boundedBytes(endless, 10_000),
    (error: Error) =>
      error instanceof BodyTooLargeError && error.maxBytes === 10_000 &&
      error.message === "The response body is over 10000 bytes",
  );
  assert.ok(cancelled instanceof BodyTooLargeError);
  assert.ok(produced <= 4 * 4096, `${produced}`);
});

Deno.test("responseBytes() decodes a coded body in bounded parts, within its bound", async () => {
  const { gzipSync } = await import("node:zlib");
  const coded = (bytes: Uint8Array) =>
    new Response(gzipSync(bytes), { headers: { "content-encoding": "gzip" } });
  const text = new TextEncoder().encode("decoded ".repeat(100));
  assert.deepEqual(await responseBytes(coded(text), 800), text);
  await assert.rejects(
    responseBytes(coded(new Uint8Array(1 << 20)), 1000),
    (error: Error) => error instanceof BodyTooLargeError,
  );
  assert.equal(
    (await responseBytes(new Response("plain"), 10)).length,
    5,
  );
});

Deno.test("readResponseText() gives the text, or no text and why, never a rejection", async () => {
  assert.deepEqual(await readResponseText(new Response("héllo"), 6), {
    text: "héllo",
  });
  const tooLarge = await readResponseText(new Response("héllo"), 5);
  assert.equal(tooLarge.text, "");
  assert.ok(tooLarge.unread instanceof BodyTooLargeError);
  const corrupt = await readResponseText(
    new Response(new Uint8Array([1, 2, 3, 4]), {
      headers: { "content-encoding": "gzip" },
    }),
    1024,
  );
  assert.equal(corrupt.text, "");
  assert.ok(corrupt.unread instanceof Error);
});
