/**
 * The proxy role through `main.ts` as a subprocess, as a user runs it.
 */
import assert from "node:assert/strict";
import {
  rawRequest,
  startEchoUpstream,
} from "../services/proxy/_test_helpers.ts";
import { freePort, startMain } from "./_test_helpers.ts";

/** An upstream that responds to `/slow` after `delayMs` and never responds to `/hang`. */
function startSlowUpstream(delayMs: number) {
  const release = Promise.withResolvers<void>();
  const arrived = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      if (request.url.endsWith("/hang")) await release.promise;
      else {
        arrived.resolve();
        await new Promise((resolve) => setTimeout(resolve, delayMs));
      }
      return new Response("slow response");
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    /** Resolves when a `/slow` request has reached the upstream. */
    arrived: arrived.promise,
    async stop() {
      release.resolve();
      await server.shutdown();
    },
  };
}

Deno.test("proxy role relays, refuses and stops on SIGTERM with exit 0", async (t) => {
  const echo = startEchoUpstream();
  const slow = startSlowUpstream(500);
  const port = freePort();
  const proxy = startMain(["proxy"], {
    env: {
      PROXY_ROUTES:
        `api=${echo.url}/base,slow=${slow.url},closed=http://127.0.0.1:1`,
      PROXY_HOST: "127.0.0.1",
      PROXY_PORT: String(port),
      PROXY_ALLOW_ORIGIN: "https://page.example",
      PROXY_TIMEOUT_MS: "1500",
    },
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await proxy.waitFor(
      new RegExp(
        `\\[INFO\\] proxy listening on http://127\\.0\\.0\\.1:${port}$`,
      ),
    );

    await t.step(
      "relays GET with its query and POST with its body",
      async () => {
        const get = await fetch(`${base}/api/items?page=2`);
        assert.equal(get.status, 200);
        assert.equal(
          get.headers.get("access-control-allow-origin"),
          "https://page.example",
        );
        const seen = await get.json();
        assert.equal(seen.path + seen.query, "/base/items?page=2");

        const post = await fetch(`${base}/api/items`, {
          method: "POST",
          body: "hello",
        });
        const posted = await post.json();
        assert.deepEqual([posted.method, posted.body], ["POST", "hello"]);
      },
    );
    await t.step("responds to preflight, 405, 404 and healthz", async () => {
      const preflight = await fetch(`${base}/api/items`, {
        method: "OPTIONS",
        headers: { "access-control-request-headers": "x-token" },
      });
      assert.equal(preflight.status, 204);
      assert.equal(await preflight.text(), "");
      assert.equal(
        preflight.headers.get("access-control-allow-headers"),
        "x-token",
      );

      const patch = await fetch(`${base}/api/items`, { method: "PATCH" });
      assert.equal(patch.status, 405);
      assert.equal(await patch.text(), "");

      const unmatched = await fetch(`${base}/apix/items`);
      assert.equal(unmatched.status, 404);
      assert.equal(await unmatched.text(), "");

      const health = await fetch(`${base}/healthz`);
      assert.deepEqual(await health.json(), { status: "ok" });
    });
    await t.step("refuses a hostile raw path with 400", async () => {
      const response = await rawRequest(port, "/api/%2e%2e/%2e%2e/etc/passwd");
      assert.equal(response.status, 400);
      assert.match(
        JSON.parse(response.body).message,
        /^Invalid path "\/api\/%2e%2e/,
      );
    });
    await t.step(
      "502 for a closed port, 504 for a hanging upstream",
      async () => {
        const closed = await fetch(`${base}/closed/x`);
        assert.equal(closed.status, 502);
        assert.match((await closed.json()).message, /unreachable/);
        const hang = await fetch(`${base}/slow/hang`);
        assert.equal(hang.status, 504);
        assert.deepEqual(await hang.json(), {
          message: 'Upstream of route "slow" did not respond within 1500 ms',
        });
        await proxy.waitFor(
          /\[WARNING\] Upstream of route "slow" did not respond/,
        );
      },
    );
    await t.step("finishes a request in flight when stopped", async () => {
      const inFlight = fetch(`${base}/slow/wait`);
      await slow.arrived;
      const code = proxy.stop("SIGTERM");
      const response = await inFlight;
      assert.equal(response.status, 200);
      assert.equal(await response.text(), "slow response");
      assert.equal(await code, 0);
    });
    assert.equal(echo.seen.every((path) => path.startsWith("/base/")), true);
  } finally {
    await proxy.stop();
    await slow.stop();
    await echo.stop();
  }
});

Deno.test("proxy role lets a route named healthz win", async () => {
  const echo = startEchoUpstream();
  const port = freePort();
  const proxy = startMain(["proxy"], {
    env: {
      PROXY_ROUTES: `healthz=${echo.url}/status`,
      PROXY_PORT: String(port),
    },
  });
  try {
    await proxy.waitFor(/proxy listening on http:\/\/0\.0\.0\.0:/);
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal((await response.json()).path, "/status");
  } finally {
    assert.equal(await proxy.stop(), 0);
    await echo.stop();
  }
});

Deno.test("proxy role exits 2 on bad settings, naming the variable", async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [{}, /^Missing PROXY_ROUTES: /],
    [
      { PROXY_ROUTES: "api" },
      /Invalid PROXY_ROUTES: entry "api" is not name=URL/,
    ],
    [
      { PROXY_ROUTES: "api=ftp://h" },
      /Invalid PROXY_ROUTES: URL "ftp:\/\/h" of "api"/,
    ],
    [{ PROXY_ROUTES: "a/b=http://h" }, /Invalid PROXY_ROUTES: name "a\/b"/],
    [
      { PROXY_ROUTES: "a=http://h", PROXY_TIMEOUT_MS: "soon" },
      /Invalid PROXY_TIMEOUT_MS "soon"/,
    ],
    [
      { PROXY_ROUTES: "a=http://h", PROXY_PORT: "99999" },
      /Invalid PROXY_PORT "99999"/,
    ],
    [
      {
        PROXY_ROUTES: "a=http://h",
        PROXY_ALLOW_ORIGIN: "https://a.example,https://B.example/",
      },
      /Invalid PROXY_ALLOW_ORIGIN ".*": .*did you mean "https:\/\/b\.example"/,
    ],
    [
      { PROXY_ROUTES: "a=http://h", PROXY_CACHE_MS: "forever" },
      /Invalid PROXY_CACHE_MS "forever"/,
    ],
    [
      { PROXY_ROUTES: "a=http://h", PROXY_CACHE_MAX_BYTES: "lots" },
      /Invalid PROXY_CACHE_MAX_BYTES "lots"/,
    ],
  ];
  for (const [env, expected] of cases) {
    await t.step(JSON.stringify(env), async () => {
      const proxy = startMain(["proxy"], { env });
      const code = await proxy.exited();
      assert.equal(code, 2);
      const lines = [...proxy.stdout, ...proxy.stderr];
      assert.ok(
        lines.some((line) => expected.test(line.replace(/^proxy: /, ""))),
        lines.join("\n"),
      );
    });
  }
  await t.step("a URL with credentials is not echoed", async () => {
    const proxy = startMain(["proxy"], {
      env: { PROXY_ROUTES: "a=http://user:hunter2@h/x" },
    });
    assert.equal(await proxy.exited(), 2);
    assert.ok(
      ![...proxy.stdout, ...proxy.stderr].join("\n").includes("hunter2"),
    );
  });
});

Deno.test("proxy role returns 508 for a route that leads back to itself", async () => {
  const port = freePort();
  const proxy = startMain(["proxy"], {
    env: {
      PROXY_ROUTES: `self=http://127.0.0.1:${port}/self`,
      PROXY_HOST: "127.0.0.1",
      PROXY_PORT: String(port),
      PROXY_TIMEOUT_MS: "5000",
    },
  });
  try {
    await proxy.waitFor(/\[INFO\] proxy listening on /);
    const response = await fetch(`http://127.0.0.1:${port}/self/x`);
    // The relayed call came back and was refused; its 508 is relayed once.
    assert.equal(response.status, 508);
    assert.deepEqual(await response.json(), {
      message:
        "This request already passed through this proxy (its Via says so): a route in PROXY_ROUTES points back at the proxy",
    });
    assert.equal(
      proxy.stderr.filter((line) => line.includes("[WARNING]")).length,
      1,
    );
  } finally {
    assert.equal(await proxy.stop(), 0);
  }
});
