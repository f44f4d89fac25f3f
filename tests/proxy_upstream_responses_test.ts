/**
 * The proxy facing upstreams whose responses are odd or broken, sent as raw bytes over
 * TCP: coded bodies browsers accept, and responses that are not valid HTTP/1.1.
 */
import assert from "node:assert/strict";
import { deflateRawSync, deflateSync } from "node:zlib";
import { createMemoryLog } from "../lib/_test_memory_log.ts";
import { createHttp1Client } from "../lib/http1/client.ts";
import { parseRoutes } from "../services/proxy/routes.ts";
import { serveTestProxy } from "../services/proxy/_test_helpers.ts";
import { startRawServer } from "../lib/http1/_test_helpers.ts";

const TEXT = "hello, deflated world; ".repeat(20);
const ZLIB = deflateSync(TEXT);
const RAW_DEFLATE = deflateRawSync(TEXT);

/** A 200 response with `headers` and `body`, as bytes. */
function rawResponse(
  headers: string[],
  body: Uint8Array | string = "",
): Uint8Array {
  const bytes = typeof body === "string"
    ? new TextEncoder().encode(body)
    : body;
  const head = new TextEncoder().encode(
    `HTTP/1.1 200 OK\r\n${headers.map((line) => `${line}\r\n`).join("")}\r\n`,
  );
  const raw = new Uint8Array(head.length + bytes.length);
  raw.set(head);
  raw.set(bytes, head.length);
  return raw;
}

const RESPONSES: Record<string, string | Uint8Array> = {
  "/r/zlib": rawResponse(
    ["content-encoding: deflate", `content-length: ${ZLIB.length}`],
    ZLIB,
  ),
  "/r/raw-deflate": rawResponse(
    ["content-encoding: deflate", `content-length: ${RAW_DEFLATE.length}`],
    RAW_DEFLATE,
  ),
  "/r/empty-gzip": rawResponse(
    ["content-encoding: gzip", "transfer-encoding: chunked"],
    "0\r\n\r\n",
  ),
  "/r/bad-gzip": rawResponse(
    ["content-encoding: gzip", "content-length: 12"],
    "not gzipped!",
  ),
  "/r/header-line": rawResponse(["bad header line", "content-length: 2"], "ok"),
  "/r/folded": rawResponse(["x-a: 1", "  folded", "content-length: 2"], "ok"),
  "/r/length": rawResponse(["content-length: abc"], "ok"),
  "/r/status": "HTTP/1.1 2000 OK\r\ncontent-length: 2\r\n\r\nok",
  "/r/control": rawResponse(["x-a: a\x01b", "content-length: 2"], "ok"),
  "/r/bare-lf": "HTTP/1.1 200 OK\nx-a: 1\ncontent-length: 2\n\nok",
};

async function withProxy(
  transport: "pooled client" | "fetch",
  fn: (proxy: string, log: ReturnType<typeof createMemoryLog>) => Promise<void>,
) {
  const upstream = startRawServer(
    (head) =>
      RESPONSES[head.split(" ")[1] ?? "/"] ??
        "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n",
    { closeAfterResponse: true },
  );
  const log = createMemoryLog();
  const client = createHttp1Client();
  const server = serveTestProxy({
    http1: transport === "fetch" ? undefined : client,
    routes: parseRoutes(`x=${upstream.url}/r`),
    log,
    timeoutMs: 2000,
  });
  try {
    await fn(server.url, log);
  } finally {
    await server.stop();
    client.close();
    await upstream.stop();
  }
}

/** Waits for the proxy to log a WARNING after the client saw the cut. */
async function nextWarning(
  log: ReturnType<typeof createMemoryLog>,
  before: number,
): Promise<string | undefined> {
  for (let i = 0; i < 50 && log.at("WARNING").length <= before; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return log.at("WARNING")[before];
}

for (const transport of ["pooled client", "fetch"] as const) {
  Deno.test(`[${transport}] proxy returns 502 for an upstream response that is not valid HTTP`, async (t) => {
    await withProxy(transport, async (proxy, log) => {
      const paths = ["header-line", "folded", "length", "status", "control"];
      // The pooled client frames responses as llhttp does: lines end in CRLF.
      if (transport === "pooled client") paths.push("bare-lf");
      for (const path of paths) {
        await t.step(path, async () => {
          const before = log.at("WARNING").length;
          const response = await fetch(`${proxy}/x/${path}`);
          assert.equal(response.status, 502);
          assert.equal(
            response.headers.get("access-control-allow-origin"),
            "*",
          );
          // fetch's TypeError does not say which: the proxy does not guess.
          const what = transport === "fetch"
            ? "is unreachable or sent an invalid HTTP response"
            : "sent an invalid HTTP response";
          assert.deepEqual(await response.json(), {
            message: `Upstream of route "x" ${what}`,
          });
          const warning = log.at("WARNING")[before] ?? "";
          assert.ok(
            warning.startsWith(`Upstream of route "x" ${what}: `),
            warning,
          );
        });
      }
    });
  });
}

Deno.test("[fetch] proxy relays a response whose lines end in a bare LF (as hyper reads it)", async () => {
  {
    const transport = "fetch";
    await withProxy(transport, async (proxy) => {
      const response = await fetch(`${proxy}/x/bare-lf`);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("x-a"), "1");
      assert.equal(await response.text(), "ok");
    });
  }
});

for (const transport of ["pooled client", "fetch"] as const) {
  Deno.test(`[${transport}] proxy relays deflate with or without its zlib header readably`, async () => {
    await withProxy(transport, async (proxy, log) => {
      for (
        const [path, sent] of [["zlib", ZLIB], [
          "raw-deflate",
          RAW_DEFLATE,
        ]] as const
      ) {
        const response = await fetch(`${proxy}/x/${path}`);
        assert.equal(response.status, 200);
        const body = new Uint8Array(await response.arrayBuffer());
        if (transport === "pooled client") {
          // Decoded by the proxy's client.
          assert.equal(response.headers.get("content-encoding"), null);
          assert.equal(new TextDecoder().decode(body), TEXT, path);
        } else {
          // Deno's fetch decodes only gzip and br: the coding goes on to the
          // client, which decodes it (this test's fetch does not: raw bytes).
          assert.equal(response.headers.get("content-encoding"), "deflate");
          assert.deepEqual(body, new Uint8Array(sent), path);
        }
      }
      assert.deepEqual(log.at("WARNING"), []);
    });
  });

  Deno.test(`[${transport}] proxy logs a coded body that does not decode as a WARNING naming the route`, async () => {
    await withProxy(transport, async (proxy, log) => {
      // Found within the first MiB, which the proxy reads before it responds: a 502.
      const response = await fetch(`${proxy}/x/bad-gzip`);
      assert.equal(response.status, 502);
      assert.match((await response.json()).message, /^Upstream of route "x" /);
      const warning = await nextWarning(log, 0);
      assert.match(warning ?? "", /^Upstream of route "x" /);
      if (transport === "pooled client") {
        assert.match(
          warning ?? "",
          /^Upstream of route "x" sent an invalid HTTP response body \(502\): Invalid gzip body from the server: /,
        );
      }
      assert.equal(log.at("ERROR").length, 0);
    });
  });
}

Deno.test("[pooled client] proxy returns an empty gzip body as empty", async () => {
  // (Deno's fetch fails such a body: the https path cannot do this.)
  await withProxy("pooled client", async (proxy, log) => {
    const response = await fetch(`${proxy}/x/empty-gzip`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-encoding"), null);
    assert.equal(await response.text(), "");
    assert.deepEqual(log.at("WARNING"), []);
  });
});
