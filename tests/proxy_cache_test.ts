/**
 * The response cache (`PROXY_CACHE_MS`, `PROXY_CACHE_MAX_BYTES`) through `main.ts proxy`
 * against a counting upstream: hits and misses, the upstream's `Cache-Control`, `Vary`, the byte bound, one upstream request for 50 concurrent misses,
 * routes kept apart, and no cache at all when `PROXY_CACHE_MS` is unset; `Age` and
 * expiry through the same app served in this process, on a clock the test moves.
 */
import assert from "node:assert/strict";
import { createMemoryLog } from "../lib/_test_memory_log.ts";
import { parseRoutes } from "../services/proxy/routes.ts";
import { serveTestProxy } from "../services/proxy/_test_helpers.ts";
import { freePort, type MainProcess, startMain } from "./_test_helpers.ts";

/** An upstream counting calls per path (with query); its responses depend on the path. */
function startCountingUpstream() {
  const calls = new Map<string, number>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      const key = `${url.pathname}${url.search}`;
      const n = (calls.get(key) ?? 0) + 1;
      calls.set(key, n);
      const name = url.pathname.split("/").pop() ?? "";
      const headers: Record<string, string> = {
        "content-type": "text/plain",
      };
      let body = `${name} ${n}`;
      if (name === "max-age") headers["cache-control"] = "public, max-age=2";
      if (name === "no-store") headers["cache-control"] = "no-store";
      if (name === "private") headers["cache-control"] = "private";
      if (name === "no-cache") headers["cache-control"] = "no-cache";
      if (name === "vary") {
        headers["vary"] = "Accept-Language";
        body = `${request.headers.get("accept-language")} ${n}`;
      }
      if (name === "big") {
        body = "x".repeat(Number(url.searchParams.get("size")));
      }
      if (name === "slow") {
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      if (name === "missing") return new Response(body, { status: 404 });
      return new Response(body, { headers });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    /** How many calls reached `path` (with its query). */
    count: (path: string) => calls.get(path) ?? 0,
    total: () => [...calls.values()].reduce((a, b) => a + b, 0),
    stop: () => server.shutdown(),
  };
}

async function startProxy(
  env: Record<string, string>,
): Promise<{ proxy: MainProcess; base: string }> {
  const port = freePort();
  const proxy = startMain(["proxy"], {
    env: { PROXY_HOST: "127.0.0.1", PROXY_PORT: String(port), ...env },
  });
  await proxy.waitFor(/\[INFO\] proxy listening on /);
  return { proxy, base: `http://127.0.0.1:${port}` };
}

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return {
    status: response.status,
    body: await response.text(),
    cache: response.headers.get("x-cache"),
    age: response.headers.get("age"),
  };
}

/**
 * The same proxy app in this process, served on a free port, with the cache's clock
 * in the test's hands: expiry is checked without waiting for it.
 */
function startProxyWithClock(upstreamUrl: string) {
  let time = 1_000_000;
  const server = serveTestProxy({
    routes: parseRoutes(`api=${upstreamUrl}/v1`),
    log: createMemoryLog(),
    cacheMs: 4000,
    now: () => time,
  });
  return {
    base: server.url,
    advance: (ms: number) => time += ms,
    stop: () => server.stop(),
  };
}

Deno.test("proxy cache: Age grows and responses expire on the cache's clock", async (t) => {
  const upstream = startCountingUpstream();
  const proxy = startProxyWithClock(upstream.url);
  const base = proxy.base;
  try {
    await t.step(
      "a miss, then hits with a growing Age, then a miss after expiry",
      async () => {
        assert.deepEqual(await get(`${base}/api/plain`), {
          status: 200,
          body: "plain 1",
          cache: "MISS",
          age: "0",
        });
        const hit = await get(`${base}/api/plain`);
        assert.deepEqual([hit.body, hit.cache, hit.age], [
          "plain 1",
          "HIT",
          "0",
        ]);
        proxy.advance(1_100);
        const older = await get(`${base}/api/plain`);
        assert.deepEqual([older.cache, older.age], ["HIT", "1"]);
        assert.equal(upstream.count("/v1/plain"), 1);
        proxy.advance(2_899); // 3999 ms since the miss: still fresh
        assert.equal((await get(`${base}/api/plain`)).cache, "HIT");
        proxy.advance(2); // past 4000 ms since the miss
        const expired = await get(`${base}/api/plain`);
        assert.deepEqual([expired.body, expired.cache], ["plain 2", "MISS"]);
        assert.equal(upstream.count("/v1/plain"), 2);
      },
    );
    await t.step("max-age shortens the time", async () => {
      await get(`${base}/api/max-age`);
      assert.equal((await get(`${base}/api/max-age`)).cache, "HIT");
      proxy.advance(1_900);
      assert.equal((await get(`${base}/api/max-age`)).cache, "HIT");
      proxy.advance(200); // past max-age=2, well within the 4000 ms
      assert.equal((await get(`${base}/api/max-age`)).cache, "MISS");
      assert.equal(upstream.count("/v1/max-age"), 2);
    });
  } finally {
    await proxy.stop();
    await upstream.stop();
  }
});

Deno.test("proxy cache: hits, Cache-Control, Vary, byte bound, single flight, routes apart", async (t) => {
  const upstream = startCountingUpstream();
  const { proxy, base } = await startProxy({
    PROXY_ROUTES:
      `api=${upstream.url}/v1,twin=${upstream.url}/v1,keyed=${upstream.url}/k`,
    PROXY_ROUTE_KEYED_QUERY: "appid=route-key-123456",
    PROXY_CACHE_MS: "4000",
    PROXY_CACHE_MAX_BYTES: "16000",
  });
  try {
    await proxy.waitFor(/proxy cache: 4000 ms, at most 16000 bytes/);
    await t.step(
      "no-store, private, no-cache and errors are not stored",
      async () => {
        for (const name of ["no-store", "private", "no-cache", "missing"]) {
          await get(`${base}/api/${name}`);
          const second = await get(`${base}/api/${name}`);
          assert.equal(second.cache, "MISS", name);
          assert.equal(upstream.count(`/v1/${name}`), 2, name);
        }
      },
    );
    await t.step(
      "responses are kept apart by the headers they vary on",
      async () => {
        const en = { "accept-language": "en" };
        const de = { "accept-language": "de" };
        assert.equal((await get(`${base}/api/vary`, en)).body, "en 1");
        assert.equal((await get(`${base}/api/vary`, de)).body, "de 2");
        const enAgain = await get(`${base}/api/vary`, en);
        assert.deepEqual([enAgain.body, enAgain.cache], ["en 1", "HIT"]);
        const deAgain = await get(`${base}/api/vary`, de);
        assert.deepEqual([deAgain.body, deAgain.cache], ["de 2", "HIT"]);
      },
    );
    await t.step(
      "a cached response never crosses routes; the key holds the added parameters",
      async () => {
        await get(`${base}/api/shared`);
        assert.equal((await get(`${base}/twin/shared`)).cache, "MISS");
        assert.equal(upstream.count("/v1/shared"), 2);
        // The client's appid is replaced: both calls are one target URL.
        await get(`${base}/keyed/x?appid=a`);
        assert.equal((await get(`${base}/keyed/x?appid=b`)).cache, "HIT");
        assert.equal(upstream.count("/k/x?appid=route-key-123456"), 1);
      },
    );
    await t.step(
      "the byte bound: over a sixteenth not stored, least recently used out",
      async () => {
        await get(`${base}/api/big?size=1001`);
        assert.equal((await get(`${base}/api/big?size=1001`)).cache, "MISS");
        await get(`${base}/api/big?size=1000`);
        assert.equal((await get(`${base}/api/big?size=1000`)).cache, "HIT");
        // 16 more responses of 1000 bytes fill the 16000: the oldest goes.
        for (let i = 0; i < 16; i++) {
          await get(`${base}/api/big?size=1000&n=${i}`);
        }
        assert.equal(
          (await get(`${base}/api/big?size=1000&n=15`)).cache,
          "HIT",
        );
        assert.equal((await get(`${base}/api/big?size=1000`)).cache, "MISS");
      },
    );
    await t.step("50 concurrent misses make one upstream request", async () => {
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => get(`${base}/api/slow`)),
      );
      assert.equal(upstream.count("/v1/slow"), 1);
      assert.ok(
        responses.every((a) => a.status === 200 && a.body === "slow 1"),
      );
      assert.equal(responses.filter((a) => a.cache === "MISS").length, 1);
    });
  } finally {
    assert.equal(await proxy.stop(), 0);
    await upstream.stop();
  }
});

Deno.test("proxy cache: none at all when PROXY_CACHE_MS is unset", async () => {
  const upstream = startCountingUpstream();
  const { proxy, base } = await startProxy({
    PROXY_ROUTES: `api=${upstream.url}/v1`,
  });
  try {
    for (let i = 1; i <= 3; i++) {
      const response = await fetch(`${base}/api/max-age`);
      assert.equal(await response.text(), `max-age ${i}`);
      assert.equal(response.headers.has("x-cache"), false);
      assert.equal(response.headers.has("age"), false);
    }
    const slow = await Promise.all(
      Array.from({ length: 5 }, () => get(`${base}/api/slow`)),
    );
    assert.equal(new Set(slow.map((a) => a.body)).size, 5);
    assert.equal(upstream.total(), 8);
    assert.ok(![...proxy.stdout, ...proxy.stderr].some((l) => /cache/.test(l)));
  } finally {
    assert.equal(await proxy.stop(), 0);
    await upstream.stop();
  }
});
