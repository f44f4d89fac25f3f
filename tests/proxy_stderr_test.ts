/**
 * What the proxy writes to standard error when an upstream's body fails mid-way
 * (issue 25, item 6), through `main.ts`: only log lines, in the configured format
 * and level, with the route's added values masked, never a raw error trace.
 */
import assert from "node:assert/strict";
import { freePort, startMain, waitForHttp } from "./_test_helpers.ts";

const SECRET = "TRAILER-SECRET-4242";
const encoder = new TextEncoder();

/**
 * A raw upstream: `/trailer` returns a chunked body whose trailer is malformed and
 * echoes the request's `X-Api-Key`; `/cut` closes the connection mid-chunk.
 */
function startBrokenUpstream() {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serve = async (conn: Deno.Conn) => {
    try {
      const buffer = new Uint8Array(65536);
      let head = "";
      while (!head.includes("\r\n\r\n")) {
        const count = await conn.read(buffer);
        if (count === null) return;
        head += new TextDecoder().decode(buffer.subarray(0, count));
      }
      const key = /^x-api-key: (.*)$/im.exec(head)?.[1]?.trim() ?? "";
      const start = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n";
      if (head.startsWith("GET /trailer")) {
        await conn.write(
          encoder.encode(
            `${start}5\r\nhello\r\n0\r\nbad trailer line ${key}\r\n\r\n`,
          ),
        );
      } else {
        await conn.write(encoder.encode(`${start}10\r\nhello`));
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    } catch {
      // closed by the proxy
    } finally {
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) serve(conn);
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    async stop() {
      listener.close();
      await accepting;
    },
  };
}

const TEXT_LINE =
  /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2} \[(DEBUG|INFO|WARNING|ERROR)\] /;

for (
  const [level, format] of [
    ["DEBUG", "text"],
    ["ERROR", "text"],
    ["DEBUG", "json"],
  ] as const
) {
  Deno.test(`proxy writes only log lines when an upstream's body fails (LOG_LEVEL=${level}, LOG_FORMAT=${format})`, async () => {
    const upstream = startBrokenUpstream();
    const port = freePort();
    const proxy = startMain(["proxy"], {
      env: {
        PROXY_ROUTES: `api=${upstream.url}`,
        PROXY_ROUTE_API_HEADERS: JSON.stringify({ "X-Api-Key": SECRET }),
        PROXY_HOST: "127.0.0.1",
        PROXY_PORT: String(port),
        LOG_LEVEL: level,
        LOG_FORMAT: format,
      },
    });
    try {
      await waitForHttp(`http://127.0.0.1:${port}/healthz`);
      for (const path of ["trailer", "cut", "trailer", "cut"]) {
        const response = await fetch(`http://127.0.0.1:${port}/api/${path}`);
        assert.equal(response.status, 200);
        await assert.rejects(response.text());
      }
      if (level === "DEBUG") await proxy.waitFor(/a response failed/);
      else await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      assert.equal(await proxy.stop(), 0);
      await upstream.stop();
    }
    const lines = proxy.stderr.filter((line) => line !== "");
    // At ERROR, nothing at all: the failures are WARNING and DEBUG lines.
    assert.equal(lines.length > 0, level === "DEBUG", lines.join("\n"));
    for (const line of lines) {
      assert.ok(!line.includes(SECRET), line);
      if (format === "json") {
        const record = JSON.parse(line);
        assert.match(record.level, /^(DEBUG|INFO|WARNING|ERROR)$/, line);
      } else assert.match(line, TEXT_LINE);
      if (level === "ERROR") {
        assert.ok(!/\[(DEBUG|WARNING)\]/.test(line), line);
      }
    }
    assert.equal(proxy.stderr.filter((line) => line === "").length, 0);
    assert.ok(!proxy.stdout.join("\n").includes(SECRET));
  });
}
