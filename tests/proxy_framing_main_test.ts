/**
 * The proxy role through `main.ts` against an upstream that breaks HTTP/1.1 framing in
 * every way the pooled client refuses: two clients with different `Authorization`,
 * and client B never receives a byte the upstream meant for client A; the proxy keeps
 * serving.
 */
import assert from "node:assert/strict";
import {
  type ScriptStep,
  startScriptedServer,
} from "../lib/http1/_test_helpers.ts";
import { freePort, startMain } from "./_test_helpers.ts";

/** What the upstream means for client A only. */
const SECRET = "A-SECRET";
/** A whole response carrying A's secret, for pipelined or late bytes. */
const LEAK =
  `HTTP/1.1 200 OK\r\nContent-Length: ${SECRET.length}\r\n\r\n${SECRET}`;
const FOR_B = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfor-B";

const head = (lines: string) => `HTTP/1.1 200 OK\r\n${lines}\r\n`;

/** Responses to A: each breaks framing, or sends bytes nobody asked for. */
const BROKEN: Record<string, { steps: ScriptStep[]; pauseMs?: number }> = {
  "empty-length": {
    steps: [head("Content-Length: \r\n"), 5, `${SECRET}${LEAK}`],
  },
  "plus-length": { steps: [head("Content-Length: +8\r\n") + SECRET + LEAK] },
  "hex-length": { steps: [head("Content-Length: 0x8\r\n") + SECRET + LEAK] },
  "decimal-length": { steps: [head("Content-Length: 8.0\r\n") + SECRET] },
  "two-lengths": {
    steps: [head("Content-Length: 0\r\nContent-Length: 8\r\n") + SECRET],
  },
  "length-and-chunked": {
    steps: [
      head("Content-Length: 0\r\nTransfer-Encoding: chunked\r\n") +
      `8\r\n${SECRET}\r\n0\r\n\r\n`,
    ],
  },
  "chunked-twice": {
    steps: [
      head("Transfer-Encoding: chunked, chunked\r\n") +
      `8\r\n${SECRET}\r\n0\r\n\r\n`,
    ],
  },
  "chunk-junk": {
    steps: [head("Transfer-Encoding: chunked\r\n") + `0 junk\r\n\r\n${LEAK}`],
  },
  "chunk-hex-prefix": {
    steps: [head("Transfer-Encoding: chunked\r\n") + `0x0\r\n\r\n${LEAK}`],
  },
  "chunk-no-crlf": {
    steps: [
      head("Transfer-Encoding: chunked\r\n") + `2\r\n${SECRET}\r\n0\r\n\r\n`,
    ],
  },
  "chunk-overflow": {
    steps: [
      head("Transfer-Encoding: chunked\r\n") +
      `fffffffffffffffffffff\r\n${SECRET}`,
    ],
  },
  "bare-lf": { steps: [`HTTP/1.1 200 OK\nContent-Length: 0\n\n${LEAK}`] },
  "obs-fold": {
    steps: [
      head("X-A: 1\r\n  Content-Length: 0\r\nContent-Length: 0\r\n") + LEAK,
    ],
  },
  "space-before-colon": {
    steps: [head("Content-Length : 0\r\nContent-Length: 0\r\n") + LEAK],
  },
  "bad-status": {
    steps: [`HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n${LEAK}`],
  },
  "unasked-101": {
    steps: [`HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\n\r\n${LEAK}`],
  },
  "pipelined-extra": {
    steps: [head("Content-Length: 2\r\n") + "ok" + LEAK],
  },
  "204-with-body": {
    steps: [
      `HTTP/1.1 204 No Content\r\nContent-Length: 8\r\n\r\n${SECRET}${LEAK}`,
    ],
  },
  "late-1ms": {
    steps: [head("Content-Length: 2\r\n") + "ok", 1, LEAK],
    pauseMs: 100,
  },
  "late-50ms": {
    steps: [head("Content-Length: 2\r\n") + "ok", 50, LEAK],
    pauseMs: 150,
  },
  "early-close": { steps: [head("Content-Length: 100\r\n") + SECRET] },
  "huge-head": {
    steps: [
      head(`X-Big: ${"a".repeat(100_000)}\r\nContent-Length: 0\r\n`) + LEAK,
    ],
  },
};

Deno.test("proxy role: client B never gets a byte meant for client A, whatever the upstream's framing", async (t) => {
  const upstream = startScriptedServer((request) => {
    if (/^authorization: Bearer B$/im.test(request)) return { steps: [FOR_B] };
    const name = request.split(" ")[1]!.slice(1);
    const broken = BROKEN[name];
    // A's responses close the connection a little later (an early close, or a
    // response read until the end), so every case ends.
    return broken
      ? { steps: [...broken.steps, 300], close: true }
      : { steps: [FOR_B] };
  });
  const port = freePort();
  const proxy = startMain(["proxy"], {
    env: {
      PROXY_ROUTES: `x=${upstream.url}`,
      PROXY_HOST: "127.0.0.1",
      PROXY_PORT: String(port),
      PROXY_TIMEOUT_MS: "2000",
    },
  });
  const base = `http://127.0.0.1:${port}`;
  const call = async (path: string, who: "A" | "B") => {
    const response = await fetch(`${base}/x/${path}`, {
      headers: { authorization: `Bearer ${who}` },
    });
    const body = await response.text().catch((error) => `(cut: ${error})`);
    return { status: response.status, body };
  };
  const assertB = (response: { status: number; body: string }, label: string) =>
    assert.deepEqual(response, { status: 200, body: "for-B" }, label);
  try {
    await proxy.waitFor(/\[INFO\] proxy listening on /);
    for (const [name, { pauseMs }] of Object.entries(BROKEN)) {
      await t.step(name, async () => {
        for (let round = 0; round < 2; round++) {
          // One after the other: B's call may reuse A's connection.
          const a = await call(name, "A");
          assert.ok(
            [200, 204, 502].includes(a.status),
            `${name}: A got ${a.status}`,
          );
          if (a.status === 502) {
            assert.match(a.body, /^\{"message":"Upstream of route \\"x\\" /);
            assert.doesNotMatch(a.body, /SECRET/);
          }
          if (pauseMs) {
            await new Promise((resolve) => setTimeout(resolve, pauseMs));
          }
          assertB(await call(name, "B"), `${name}, B after A`);
          // At once: B's call runs while A's response is under way.
          const [, b] = await Promise.all([call(name, "A"), call(name, "B")]);
          assertB(b, `${name}, B beside A`);
        }
      });
    }
    await t.step(
      "the proxy keeps serving and logs the broken responses",
      async () => {
        assertB(await call("fine", "B"), "after all cases");
        assert.ok(
          [...proxy.stdout, ...proxy.stderr].some((line) =>
            /\[WARNING\] Upstream of route "x" sent an invalid HTTP response: /
              .test(line)
          ),
        );
        assert.ok(
          ![...proxy.stdout, ...proxy.stderr].some((line) =>
            line.includes(SECRET)
          ),
        );
      },
    );
  } finally {
    assert.equal(await proxy.stop("SIGTERM"), 0);
    await upstream.stop();
  }
});

Deno.test("proxy role never sends a client's POST twice; a GET goes once more when a reused connection was closed", async () => {
  // Every second request is read, then its connection closes without a response
  // (an upstream's keep-alive time-out meeting the next request).
  let seen = 0;
  const closing = startScriptedServer((_, __, index) => {
    seen = index + 1;
    return index % 2 === 0
      ? { steps: ["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"] }
      : { steps: [], close: true };
  });
  const port = freePort();
  const proxy = startMain(["proxy"], {
    env: {
      PROXY_ROUTES: `x=${closing.url}`,
      PROXY_HOST: "127.0.0.1",
      PROXY_PORT: String(port),
    },
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await proxy.waitFor(/\[INFO\] proxy listening on /);
    // A warm GET leaves one connection in the pool; the POST goes out on it.
    for (const body of [undefined, "once"]) {
      assert.equal(await (await fetch(`${base}/x/warm`)).text(), "ok");
      const post = await fetch(`${base}/x/post-${body ?? "empty"}`, {
        method: "POST",
        body,
      });
      assert.equal(post.status, 502);
      assert.match(
        await post.text(),
        /Upstream of route \\"x\\" is unreachable/,
      );
      const posts = closing.heads.filter((head) =>
        head.startsWith(`POST /post-${body ?? "empty"} `)
      );
      assert.equal(posts.length, 1, `POST with body ${body}`);
    }
    // Again, with a GET: sent once more on a new connection, and served.
    assert.equal(await (await fetch(`${base}/x/warm2`)).text(), "ok");
    const get = await fetch(`${base}/x/get`);
    assert.equal(get.status, 200);
    assert.equal(await get.text(), "ok");
    assert.equal(
      closing.heads.filter((head) => head.startsWith("GET /get ")).length,
      2,
    );
    assert.ok(seen >= 5);
  } finally {
    assert.equal(await proxy.stop("SIGTERM"), 0);
    await closing.stop();
  }
});
