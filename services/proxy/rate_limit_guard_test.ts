import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createProxyApp, type ProxyAppOptions } from "./app.ts";
import { parseRateLimit } from "./rate_limit.ts";
import { parseRoutes } from "./routes.ts";
import { parseTrustedProxies } from "./trusted_proxies.ts";

/** An app on a fake clock whose upstream requests are counted. */
function setup(options: Partial<ProxyAppOptions> = {}) {
  let calls = 0;
  const clock = { time: 1_000_000 };
  const log = createMemoryLog();
  const app = createProxyApp({
    routes: parseRoutes(
      "api=https://upstream.example,free=https://free.example",
    ),
    log,
    fetch: () => {
      calls++;
      return Promise.resolve(Response.json({ ok: true }));
    },
    now: () => clock.time,
    ...options,
  });
  /** A GET from `address`, as Deno.serve hands it over. */
  const get = (
    path: string,
    address = "192.0.2.1",
    headers: Record<string, string> = {},
  ) =>
    app.fetch(new Request(`http://proxy${path}`, { headers }), {
      remoteAddr: { transport: "tcp", hostname: address, port: 40000 },
    });
  return { app, get, log, clock, calls: () => calls };
}

Deno.test("rate limits: each client gets its limit per window, then 429", async (t) => {
  const { get, log, clock, calls } = setup({
    rateLimits: {
      limit: parseRateLimit("2/1m"),
      perClient: new Map([["free", null]]),
    },
    allowOrigin: "https://page.example",
  });
  await t.step("within the limit: relayed, with the headers", async () => {
    const first = await get("/api/x");
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("ratelimit-policy"), '"client";q=2;w=60');
    assert.equal(first.headers.get("ratelimit"), '"client";r=1;t=60');
    const exposed = first.headers.get("access-control-expose-headers") ?? "";
    for (const name of ["ratelimit", "ratelimit-policy", "retry-after"]) {
      assert.ok(exposed.split(", ").includes(name), exposed);
    }
    assert.equal((await get("/api/x")).status, 200);
    assert.equal(calls(), 2);
  });
  await t.step(
    "past it: 429 naming the limit, no upstream request",
    async () => {
      clock.time += 15_000;
      for (let i = 0; i < 5; i++) {
        const refused = await get("/api/x");
        assert.equal(refused.status, 429);
        assert.equal(refused.headers.get("retry-after"), "45");
        assert.equal(refused.headers.get("ratelimit"), '"client";r=0;t=45');
        assert.equal(
          refused.headers.get("access-control-allow-origin"),
          "https://page.example",
        );
        assert.match(
          refused.headers.get("access-control-expose-headers")!,
          /retry-after/,
        );
        assert.deepEqual(await refused.json(), {
          message:
            'Rate limit of route "api" reached: 2 requests per 1m per client (PROXY_RATE_LIMIT); retry in 45 s',
        });
      }
      assert.equal(calls(), 2);
      const warnings = log.at("WARNING");
      assert.equal(warnings.length, 1, "one line per client per window");
      assert.match(
        warnings[0]!,
        /Client 192\.0\.2\.1 reached the rate limit of route "api"/,
      );
    },
  );
  await t.step(
    "other clients and exempt routes are not held back",
    async () => {
      assert.equal((await get("/api/x", "192.0.2.2")).status, 200);
      const free = await get("/free/x");
      assert.equal(free.status, 200);
      assert.equal(free.headers.get("ratelimit-policy"), null);
    },
  );
  await t.step("the next window allows again, and warns again", async () => {
    clock.time += 45_000;
    assert.equal((await get("/api/x")).status, 200);
    await get("/api/x");
    assert.equal((await get("/api/x")).status, 429);
    assert.equal(log.at("WARNING").length, 2);
  });
});

Deno.test("rate limits: the upstream ceiling counts upstream requests of all clients, not cache hits", async () => {
  const { get, log, calls } = setup({
    rateLimits: {
      upstream: new Map([["api", parseRateLimit("2/1h")]]),
      perClient: new Map([["api", parseRateLimit("100/1h")]]),
    },
    cacheMs: 60_000,
  });
  // The cache keeps a body once it has been read.
  const first = await get("/api/a", "192.0.2.1");
  assert.equal(first.status, 200);
  await first.text();
  const second = await get("/api/b", "192.0.2.2");
  await second.text();
  assert.equal(
    second.headers.get("ratelimit-policy"),
    '"client";q=100;w=3600, "upstream";q=2;w=3600',
  );
  assert.equal(
    second.headers.get("ratelimit"),
    '"client";r=99;t=3600, "upstream";r=0;t=3600',
  );
  for (let i = 0; i < 5; i++) {
    const hit = await get("/api/a", `192.0.2.${10 + i}`);
    assert.equal(hit.status, 200, "a cache hit");
    assert.equal(hit.headers.get("x-cache"), "HIT");
    await hit.text();
  }
  // A hit carries its own client's count, not the one of the client that filled it.
  const again = await get("/api/a", "192.0.2.2");
  assert.equal(again.headers.get("x-cache"), "HIT");
  assert.equal(
    again.headers.get("ratelimit"),
    '"client";r=98;t=3600, "upstream";r=0;t=3600',
  );
  await again.text();
  const refused = await get("/api/c", "192.0.2.3");
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get("retry-after"), "3600");
  assert.match(
    (await refused.json()).message,
    /2 upstream requests per 1h for all clients \(PROXY_UPSTREAM_RATE_LIMIT_API\)/,
  );
  await (await get("/api/d", "192.0.2.4")).text();
  assert.equal(calls(), 2);
  assert.equal(log.at("WARNING").length, 1);
});

Deno.test("rate limits: relayed responses carry the proxy's headers, not the upstream's", async (t) => {
  let failing = false;
  const { get } = setup({
    rateLimits: { limit: parseRateLimit("5/1m") },
    allowOrigin: "https://page.example",
    fetch: () =>
      failing
        ? Promise.reject(new TypeError("connection refused"))
        : Promise.resolve(
          new Response("ok", {
            headers: {
              "ratelimit": '"upstream-own";r=7;t=9',
              "ratelimit-policy": '"upstream-own";q=8;w=9',
              "x-total": "3",
            },
          }),
        ),
  });
  await t.step("an upstream's own RateLimit headers are replaced", async () => {
    const response = await get("/api/x");
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("ratelimit"), '"client";r=4;t=60');
    assert.equal(
      response.headers.get("ratelimit-policy"),
      '"client";q=5;w=60',
    );
    assert.deepEqual(
      (response.headers.get("access-control-expose-headers") ?? "").split(
        ", ",
      ).sort(),
      [
        "content-type",
        "ratelimit",
        "ratelimit-policy",
        "retry-after",
        "x-total",
      ],
    );
    await response.text();
  });
  await t.step("the relay's 502 carries them too", async () => {
    failing = true;
    const response = await get("/api/x");
    assert.equal(response.status, 502);
    assert.equal(response.headers.get("ratelimit"), '"client";r=3;t=60');
    assert.equal(
      response.headers.get("access-control-expose-headers"),
      "ratelimit, ratelimit-policy, retry-after",
    );
    await response.body?.cancel();
  });
});

Deno.test("rate limits: behind a trusted proxy, X-Forwarded-For names the client", async () => {
  const { get } = setup({
    rateLimits: {
      limit: parseRateLimit("1/1m"),
      trustedProxies: parseTrustedProxies("127.0.0.1"),
    },
  });
  const from = (client: string) =>
    get("/api/x", "127.0.0.1", { "x-forwarded-for": client });
  assert.equal((await from("198.51.100.1")).status, 200);
  assert.equal((await from("198.51.100.2")).status, 200);
  assert.equal((await from("198.51.100.1")).status, 429);
  // Not from the trusted proxy: the header is not believed.
  assert.equal(
    (await get("/api/x", "192.0.2.9", { "x-forwarded-for": "1.1.1.1" })).status,
    200,
  );
  assert.equal(
    (await get("/api/x", "192.0.2.9", { "x-forwarded-for": "2.2.2.2" })).status,
    429,
  );
});

Deno.test("rate limits: by origin, as cors-anywhere counts", async () => {
  const { get } = setup({
    rateLimits: { limit: parseRateLimit("1/1m"), by: "origin" },
  });
  const page = { origin: "https://a.example" };
  assert.equal((await get("/api/x", "192.0.2.1", page)).status, 200);
  assert.equal((await get("/api/x", "192.0.2.2", page)).status, 429);
  assert.equal(
    (await get("/api/x", "192.0.2.2", { origin: "https://b.example" })).status,
    200,
  );
});

Deno.test("require header and removed headers", async () => {
  const seen: Headers[] = [];
  const app = createProxyApp({
    routes: parseRoutes("api=https://upstream.example"),
    log: createMemoryLog(),
    fetch: (input, init) => {
      seen.push(new Request(input, init).headers);
      return Promise.resolve(new Response("ok"));
    },
    requireHeader: ["origin", "x-requested-with"],
    removeHeaders: ["x-secret"],
  });
  const bare = await app.request("/api/x");
  assert.equal(bare.status, 403);
  assert.match((await bare.json()).message, /PROXY_REQUIRE_HEADER/);
  assert.equal(bare.headers.get("access-control-allow-origin"), "*");
  assert.equal(seen.length, 0);
  assert.equal((await app.request("/healthz")).status, 200, "healthz exempt");
  const sent = await app.request("/api/x", {
    headers: { "x-requested-with": "fetch", "x-secret": "1", cookie: "a=1" },
  });
  assert.equal(sent.status, 200);
  assert.equal(seen[0]!.get("x-secret"), null);
  assert.equal(seen[0]!.get("cookie"), "a=1", "the list replaces the default");
});
