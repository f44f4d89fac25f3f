import assert from "node:assert/strict";
import { brotliCompressSync, deflateRawSync, deflateSync } from "node:zlib";
import { decodedBody, isDecoded, isZlibHeader } from "./_decode.ts";
import { InvalidResponseError } from "./invalid_response_error.ts";

const TEXT = "decoded ".repeat(50);

async function gzip(text: string): Promise<Uint8Array> {
  return await new Response(
    new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")),
  ).bytes();
}

/** `bytes` as a stream of chunks of `size` bytes (1: the worst case for sniffing). */
function streamOf(bytes: Uint8Array, size = 1024): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at += size));
    },
  });
}

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

Deno.test("isZlibHeader() tells a zlib header from raw deflate", () => {
  assert.equal(isZlibHeader(0x78, 0x9c), true);
  assert.equal(isZlibHeader(0x78, 0x01), true);
  assert.equal(isZlibHeader(0x78, 0xda), true);
  const raw = deflateRawSync(TEXT);
  assert.equal(isZlibHeader(raw[0]!, raw[1]!), false);
  assert.equal(isZlibHeader(0x78, 0x9d), false); // the checksum is off
});

Deno.test("isDecoded() names the codings decoded on the way", () => {
  for (const coding of ["gzip", "x-gzip", "deflate", "br"]) {
    assert.equal(isDecoded(coding), true, coding);
  }
  for (const coding of [undefined, "zstd", "identity", "constructor"]) {
    assert.equal(isDecoded(coding), false, String(coding));
  }
});

Deno.test("decodedBody() decodes every coding, deflate with or without its zlib header", async (t) => {
  const cases: [string, string, Uint8Array][] = [
    ["gzip", "gzip", await gzip(TEXT)],
    ["x-gzip", "x-gzip", await gzip(TEXT)],
    ["deflate (zlib)", "deflate", deflateSync(TEXT)],
    ["deflate (raw)", "deflate", deflateRawSync(TEXT)],
    ["br", "br", brotliCompressSync(TEXT)],
  ];
  for (const [name, coding, bytes] of cases) {
    await t.step(name, async () => {
      assert.equal(await text(decodedBody(streamOf(bytes), coding)), TEXT);
      // Byte by byte: the two bytes that tell raw deflate come in two parts.
      assert.equal(await text(decodedBody(streamOf(bytes, 1), coding)), TEXT);
    });
  }
});

Deno.test("decodedBody() answers an empty body as empty, whatever the coding", async () => {
  for (const coding of ["gzip", "deflate", "br"]) {
    const events: string[] = [];
    const body = decodedBody(
      streamOf(new Uint8Array(0)),
      coding,
      (event) => events.push(event),
    );
    assert.equal(await text(body), "", coding);
    assert.deepEqual(events, ["wait", "end"], coding);
  }
});

Deno.test("decodedBody() fails a body that does not decode with an InvalidResponseError, and reports it", async (t) => {
  const zipped = await gzip(TEXT);
  const cases: [string, string, Uint8Array][] = [
    ["garbage", "gzip", new TextEncoder().encode("not gzip at all")],
    ["a cut gzip", "gzip", zipped.slice(0, zipped.length - 6)],
    [
      "a bad checksum",
      "gzip",
      zipped.map((b, i) => i === zipped.length - 8 ? b ^ 1 : b),
    ],
    [
      "garbage as deflate",
      "deflate",
      new Uint8Array([0x78, 0x9c, 0xff, 0xff, 0xff]),
    ],
  ];
  for (const [name, coding, bytes] of cases) {
    await t.step(name, async () => {
      let ended: unknown = "not yet";
      const body = decodedBody(streamOf(bytes), coding, (event, error) => {
        if (event === "end") ended = error;
      });
      await assert.rejects(
        text(body),
        (error: Error) =>
          error instanceof InvalidResponseError &&
          error.message.startsWith(`Invalid ${coding} body from the remote: `),
      );
      assert.ok(ended instanceof InvalidResponseError);
    });
  }
});

Deno.test("decodedBody() passes the failure of the body itself on as it is", async () => {
  const broken = new Error("The remote closed the connection mid-answer");
  const zipped = await gzip(TEXT);
  let sent = false;
  const source = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(broken);
      sent = true;
      controller.enqueue(zipped.slice(0, 20));
    },
  });
  let ended: unknown;
  const body = decodedBody(source, "gzip", (event, error) => {
    if (event === "end") ended = error;
  });
  await assert.rejects(text(body), (error) => error === broken);
  assert.equal(ended, broken);
});

Deno.test("decodedBody() reports decoded parts, and a cancel reaches the body", async () => {
  const events: string[] = [];
  let cancelled: unknown;
  const zipped = await gzip(TEXT);
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(zipped);
    },
    cancel(reason) {
      cancelled = reason;
    },
  });
  const reader = decodedBody(source, "gzip", (event) => events.push(event))
    .getReader();
  const first = await reader.read();
  assert.equal(new TextDecoder().decode(first.value), TEXT);
  assert.deepEqual(events.slice(0, 2), ["wait", "part"]);
  await reader.cancel("caller gone");
  for (let i = 0; i < 10 && cancelled === undefined; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.equal(cancelled, "caller gone");
  assert.equal(events.at(-1), "end");
  assert.equal(events.filter((event) => event === "end").length, 1);
});
