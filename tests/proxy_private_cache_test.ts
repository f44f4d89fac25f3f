/**
 * The proxy's cache and CORS headers through `main.ts` (issue 25, item 4): a
 * response made for one client's key is never served to another, and the
 * upstream's own CORS headers never pass through.
 */
import assert from "node:assert/strict";
import { freePort, startMain } from "./_test_helpers.ts";

/** A cacheable upstream echoing the client's key, with CORS headers of its own. */
function startKeyedUpstream() {
  let calls = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => {
      calls++;
      const key = request.headers.get("x-api-key") ??
        request.headers.get("x-secret") ?? "none";
      return new Response(`made for ${key}`, {
        headers: {
          "cache-control": "public, max-age=60",
          "access-control-allow-origin": "https://evil.example",
          "access-control-allow-credentials": "true",
          "access-control-allow-headers": "*",
          "access-control-max-age": "600",
        },
      });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    calls: () => calls,
    stop: () => server.shutdown(),
  };
}

Deno.test("proxy neither stores nor serves from its cache responses to private requests", async (t) => {
  const upstream = startKeyedUpstream();
  const port = freePort();
  const proxy = startMain(["proxy"], {
    env: {
      PROXY_ROUTES: `api=${upstream.url}`,
      PROXY_HOST: "127.0.0.1",
      PROXY_PORT: String(port),
      PROXY_CACHE_MS: "60000",
      PROXY_PRIVATE_HEADERS: "X-Api-Key, X-Secret",
    },
  });
  const base = `http://127.0.0.1:${port}`;
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${base}/api/${path}`, { headers });
    return {
      body: await response.text(),
      cache: response.headers.get("x-cache"),
      headers: response.headers,
    };
  };
  try {
    await proxy.waitFor(/proxy listening on/);
    await t.step(
      "a key's response is not served to a client without one",
      async () => {
        const first = await get("a", { "x-api-key": "KEYA" });
        assert.deepEqual([first.body, first.cache], [
          "made for KEYA",
          "BYPASS",
        ]);
        const second = await get("a");
        assert.deepEqual([second.body, second.cache], [
          "made for none",
          "MISS",
        ]);
        assert.equal((await get("a")).cache, "HIT");
      },
    );
    await t.step(
      "a private request is not served a stored response",
      async () => {
        for (
          const headers of [{ "x-api-key": "KEYB" }, {
            "x-secret": "S",
          }] as Record<string, string>[]
        ) {
          const { body, cache } = await get("a", headers);
          assert.equal(cache, "BYPASS");
          assert.notEqual(body, "made for none");
        }
        const calls = upstream.calls();
        const cookie = await get("a", { cookie: "session=1" });
        assert.deepEqual([cookie.body, cookie.cache], [
          "made for none",
          "BYPASS",
        ]);
        assert.equal(upstream.calls(), calls + 1);
      },
    );
    await t.step("the upstream's CORS headers never pass through", async () => {
      for (const response of [await get("b"), await get("b")]) {
        assert.equal(response.headers.get("access-control-allow-origin"), "*");
        for (const name of response.headers.keys()) {
          assert.ok(
            !name.startsWith("access-control-") ||
              name === "access-control-allow-origin" ||
              name === "access-control-expose-headers",
            `${name}: ${response.headers.get(name)}`,
          );
        }
      }
    });
  } finally {
    await proxy.stop();
    await upstream.stop();
  }
});
