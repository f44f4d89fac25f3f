/**
 * The proxy's rate limits and cors-anywhere's other guards (`PROXY_REQUIRE_HEADER`,
 * `PROXY_REMOVE_HEADERS`) through `main.ts`, as a user runs them.
 */
import assert from "node:assert/strict";
import { startEchoUpstream } from "../services/proxy/_test_helpers.ts";
import { freePort, startMain } from "./_test_helpers.ts";

Deno.test("proxy rate limits: a bad value of each setting stops start-up with exit 2 and one line naming it", async () => {
  const bad: Record<string, string> = {
    PROXY_RATE_LIMIT: "lots",
    PROXY_RATE_LIMIT_BY: "ip",
    PROXY_RATE_LIMIT_MAX_CLIENTS: "0",
    PROXY_TRUSTED_PROXIES: "10.0.0.0/8,proxy.local",
    PROXY_REQUIRE_HEADER: "origin,bad name",
    PROXY_REMOVE_HEADERS: "x:y",
    PROXY_ROUTE_UP_RATE_LIMIT: "60",
    PROXY_UPSTREAM_RATE_LIMIT_UP: "off",
    PROXY_UPSTREAM_RATE_LIMIT_NOPE: "1/1s",
  };
  const proxy = startMain(["proxy"], {
    env: { PROXY_ROUTES: "up=http://127.0.0.1:1", PROXY_PORT: "0", ...bad },
  });
  assert.equal(await proxy.exited(), 2);
  const lines = [...proxy.stdout, ...proxy.stderr];
  for (const name of Object.keys(bad)) {
    const naming = lines.filter((line) =>
      new RegExp(`\\b${name}\\b`).test(line)
    );
    assert.equal(naming.length, 1, `${name}:\n${lines.join("\n")}`);
  }
  assert.ok(lines.some((line) => line.includes('"proxy.local"')));
});

Deno.test("proxy rate limits through main.ts: 429 with the headers, trusted proxies, required and removed headers", async (t) => {
  const echo = startEchoUpstream();
  const port = freePort();
  const proxy = startMain(["proxy"], {
    env: {
      PROXY_ROUTES: `up=${echo.url},free=${echo.url},ceil=${echo.url}`,
      PROXY_HOST: "127.0.0.1",
      PROXY_PORT: String(port),
      PROXY_RATE_LIMIT: "3/1m",
      PROXY_ROUTE_FREE_RATE_LIMIT: "off",
      PROXY_UPSTREAM_RATE_LIMIT_CEIL: "2/1h",
      PROXY_TRUSTED_PROXIES: "127.0.0.1",
      PROXY_REQUIRE_HEADER: "origin,x-requested-with",
      PROXY_REMOVE_HEADERS: "x-secret,cookie",
      PROXY_ALLOW_ORIGIN: "https://page.example",
    },
  });
  const base = `http://127.0.0.1:${port}`;
  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      headers: { "x-requested-with": "fetch", ...headers },
    });
  try {
    await proxy.waitFor(/proxy listening on/);
    await proxy.waitFor(
      /\[INFO\] proxy rate limit of \/up: 3\/1m per client address$/,
    );
    await proxy.waitFor(
      /proxy rate limit of \/ceil: 3\/1m per client address, 2\/1h upstream requests for all clients$/,
    );
    await t.step(
      "PROXY_REQUIRE_HEADER refuses a bare request with 403",
      async () => {
        const bare = await fetch(`${base}/free/x`);
        assert.equal(bare.status, 403);
        assert.match((await bare.json()).message, /origin, x-requested-with/);
        const page = await fetch(`${base}/free/x`, {
          headers: { origin: "https://page.example" },
        });
        assert.equal(page.status, 200);
        await page.body?.cancel();
      },
    );
    await t.step(
      "PROXY_REMOVE_HEADERS: those headers are not forwarded",
      async () => {
        const response = await get("/free/x", {
          "x-secret": "s",
          cookie: "a=1",
          cookie2: "b=2",
          "x-kept": "k",
        });
        const { headers } = await response.json();
        assert.equal(headers["x-secret"], undefined);
        assert.equal(headers.cookie, undefined);
        assert.equal(headers.cookie2, "b=2", "the list replaces the default");
        assert.equal(headers["x-kept"], "k");
        assert.equal(
          response.headers.get("ratelimit-policy"),
          null,
          "route off",
        );
      },
    );
    await t.step(
      "PROXY_RATE_LIMIT: 429 past it, per forwarded client",
      async () => {
        const from = (client: string) =>
          get("/up/x", { "x-forwarded-for": client });
        for (let i = 0; i < 3; i++) {
          const allowed = await from("198.51.100.7");
          assert.equal(allowed.status, 200);
          assert.equal(
            allowed.headers.get("ratelimit-policy"),
            '"client";q=3;w=60',
          );
          assert.match(
            allowed.headers.get("ratelimit")!,
            new RegExp(`^"client";r=${2 - i};t=\\d+$`),
          );
          await allowed.body?.cancel();
        }
        for (let i = 0; i < 4; i++) {
          const refused = await from("198.51.100.7");
          assert.equal(refused.status, 429);
          assert.match(refused.headers.get("retry-after")!, /^\d+$/);
          assert.equal(
            refused.headers.get("access-control-allow-origin"),
            "https://page.example",
          );
          assert.match(
            refused.headers.get("access-control-expose-headers")!,
            /ratelimit.*retry-after/,
          );
          assert.match(
            (await refused.json()).message,
            /3 requests per 1m per client \(PROXY_RATE_LIMIT\)/,
          );
        }
        const other = await from("198.51.100.8");
        assert.equal(other.status, 200);
        await other.body?.cancel();
        await proxy.waitFor(
          /WARNING.*Client 198\.51\.100\.7 reached the rate limit/,
        );
        assert.equal(
          proxy.stderr.concat(proxy.stdout).filter((line) =>
            line.includes("Client 198.51.100.7")
          ).length,
          1,
          "one line per client per window",
        );
      },
    );
    await t.step(
      "PROXY_UPSTREAM_RATE_LIMIT_<NAME>: a ceiling for all clients",
      async () => {
        const statuses: number[] = [];
        for (let i = 0; i < 4; i++) {
          const response = await get("/ceil/x", {
            "x-forwarded-for": `203.0.113.${i}`,
          });
          statuses.push(response.status);
          await response.body?.cancel();
        }
        assert.deepEqual(statuses, [200, 200, 429, 429]);
        await proxy.waitFor(
          /WARNING.*Route "ceil" reached its upstream rate limit/,
        );
      },
    );
  } finally {
    await proxy.stop();
    await echo.stop();
  }
});

Deno.test("proxy rate limits through main.ts: PROXY_RATE_LIMIT_BY=origin", async () => {
  const echo = startEchoUpstream();
  const port = freePort();
  const proxy = startMain(["proxy"], {
    env: {
      PROXY_ROUTES: `up=${echo.url}`,
      PROXY_HOST: "127.0.0.1",
      PROXY_PORT: String(port),
      PROXY_RATE_LIMIT: "1/1m",
      PROXY_RATE_LIMIT_BY: "origin",
      PROXY_RATE_LIMIT_MAX_CLIENTS: "1",
    },
  });
  const get = async (origin: string) => {
    const response = await fetch(`http://127.0.0.1:${port}/up/x`, {
      headers: { origin },
    });
    await response.body?.cancel();
    return response.status;
  };
  try {
    await proxy.waitFor(/proxy listening on/);
    assert.equal(await get("https://a.example"), 200);
    assert.equal(await get("https://a.example"), 429);
    assert.equal(await get("https://b.example"), 200);
    // One window kept at most: a's was dropped for b's.
    assert.equal(await get("https://a.example"), 200);
  } finally {
    await proxy.stop();
    await echo.stop();
  }
});
