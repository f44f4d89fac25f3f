/**
 * An upstream that writes one complete response too many (issue 25, item 3), through
 * `main.ts`: the proxy never hands one client's response to a client with other
 * credentials, and `PROXY_ROUTE_<NAME>_KEEPALIVE=false` puts every call on a
 * connection of its own.
 */
import assert from "node:assert/strict";
import { freePort, startMain } from "./_test_helpers.ts";

const encoder = new TextEncoder();

/**
 * A raw HTTP/1.1 upstream responding to each GET after `delayMs` with
 * `for <Authorization>`; `strayMs` after the first response on a connection it writes
 * that response once more, unasked.
 */
function startStrayUpstream(delayMs: number, strayMs: number) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let connections = 0;
  const open = new Set<Deno.Conn>();
  const serve = async (conn: Deno.Conn) => {
    connections++;
    open.add(conn);
    const buffer = new Uint8Array(65536);
    let pending = "";
    let first = true;
    try {
      while (true) {
        const count = await conn.read(buffer);
        if (count === null) break;
        pending += new TextDecoder().decode(buffer.subarray(0, count));
        let end: number;
        while ((end = pending.indexOf("\r\n\r\n")) >= 0) {
          const head = pending.slice(0, end);
          pending = pending.slice(end + 4);
          const auth = /^authorization: (.*)$/im.exec(head)?.[1] ?? "none";
          const body = `for ${auth}`;
          const responseBytes = encoder.encode(
            `HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
          );
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          await conn.write(responseBytes);
          if (first) {
            first = false;
            setTimeout(
              () => conn.write(responseBytes).catch(() => {}),
              strayMs,
            );
          }
        }
      }
    } catch {
      // closed by the proxy
    } finally {
      open.delete(conn);
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
    connections: () => connections,
    async stop() {
      listener.close();
      for (const conn of open) {
        try {
          conn.close();
        } catch {
          // already closed
        }
      }
      await accepting;
    },
  };
}

Deno.test("proxy never hands a client the response of a client with other credentials", async (t) => {
  const upstream = startStrayUpstream(200, 100);
  const port = freePort();
  const proxy = startMain(["proxy"], {
    env: {
      PROXY_ROUTES: `api=${upstream.url},fresh=${upstream.url}`,
      PROXY_ROUTE_FRESH_KEEPALIVE: "false",
      PROXY_HOST: "127.0.0.1",
      PROXY_PORT: String(port),
    },
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await proxy.waitFor(/proxy listening on/);
    await t.step(
      "two clients alternating with different Authorization",
      async () => {
        const seen: string[] = [];
        for (let i = 0; i < 12; i++) {
          const own = i % 2 === 0 ? "Bearer KEYA" : "Bearer KEYB";
          const other = i % 2 === 0 ? "Bearer KEYB" : "Bearer KEYA";
          const response = await fetch(`${base}/api/item`, {
            headers: { authorization: own },
          });
          const body = await response.text();
          seen.push(body);
          assert.ok(!body.includes(other), `call ${i} (${own}) got ${seen}`);
        }
      },
    );
    await t.step(
      "PROXY_ROUTE_<NAME>_KEEPALIVE=false: a connection per call, no response shifted",
      async () => {
        const before = upstream.connections();
        for (let i = 0; i < 6; i++) {
          const response = await fetch(`${base}/fresh/item`, {
            headers: { authorization: `Bearer KEY${i}` },
          });
          assert.equal(await response.text(), `for Bearer KEY${i}`);
        }
        assert.equal(upstream.connections() - before, 6);
      },
    );
  } finally {
    await proxy.stop();
    await upstream.stop();
  }
});
