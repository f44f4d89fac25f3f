import assert from "node:assert/strict";
import {
  brotliCompressSync,
  constants,
  deflateRawSync,
  deflateSync,
  gzipSync,
} from "node:zlib";
import {
  DECODED_PART_BYTES,
  decodedBody,
  isDecoded,
  isZlibHeader,
} from "./_decode.ts";
import {
  ContentDecodingError,
  DecodedTooLargeError,
  InvalidResponseError,
} from "./errors.ts";

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

Deno.test("decodedBody() returns an empty body as empty, whatever the coding", async () => {
  for (const coding of ["gzip", "deflate", "br"]) {
    const body = decodedBody(streamOf(new Uint8Array(0)), coding);
    assert.equal(await text(body), "", coding);
  }
});

Deno.test("decodedBody() fails a body that does not decode with a ContentDecodingError", async (t) => {
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
      const body = decodedBody(streamOf(bytes), coding);
      await assert.rejects(
        text(body),
        (error: Error) =>
          error instanceof ContentDecodingError &&
          error instanceof InvalidResponseError &&
          error.message.startsWith(
            `Invalid ${coding} body from the server: `,
          ),
      );
    });
  }
});

Deno.test("decodedBody() passes the failure of the body itself on as it is", async () => {
  const broken = new Error("The server closed the connection mid-response");
  const zipped = await gzip(TEXT);
  let sent = false;
  const source = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(broken);
      sent = true;
      controller.enqueue(zipped.slice(0, 20));
    },
  });
  const body = decodedBody(source, "gzip");
  await assert.rejects(text(body), (error) => error === broken);
});

Deno.test("decodedBody() passes decoded parts on, and a cancel reaches the body", async () => {
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
  const reader = decodedBody(source, "gzip").getReader();
  const first = await reader.read();
  assert.equal(new TextDecoder().decode(first.value), TEXT);
  await reader.cancel("client gone");
  for (let i = 0; i < 10 && cancelled === undefined; i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.equal(cancelled, "client gone");
});

Deno.test("decodedBody() hands out bounded parts, and fails past maxBytes with a DecodedTooLargeError", async (t) => {
  const zeros = new Uint8Array(32 << 20);
  const bombs: [string, Uint8Array][] = [
    [
      "br",
      brotliCompressSync(zeros, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 5 },
      }),
    ],
    ["gzip", gzipSync(zeros)],
  ];
  for (const [coding, bomb] of bombs) {
    await t.step(coding, async () => {
      // Whole: each part within the bound, though one input chunk holds it all.
      const reader = decodedBody(streamOf(bomb, bomb.length), coding)
        .getReader();
      let total = 0;
      while (true) {
        const { done, value } = await reader.read();
        if (done) break;
        assert.ok(value.length <= DECODED_PART_BYTES, `${value.length}`);
        total += value.length;
      }
      assert.equal(total, zeros.length);
      let cancelled = false;
      const source = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(bomb);
        },
        cancel() {
          cancelled = true;
        },
      });
      await assert.rejects(
        text(decodedBody(source, coding, 1 << 20)),
        (error: Error) =>
          error instanceof DecodedTooLargeError &&
          error.message ===
            `The server's ${coding} body decodes to over 1048576 bytes`,
      );
      assert.equal(cancelled, true);
    });
  }
});
