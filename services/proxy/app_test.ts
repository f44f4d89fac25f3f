import { createRegistry } from "../../lib/metrics/registry.ts";
import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { InvalidResponseError } from "../../lib/http1/errors.ts";
import { createProxyApp, type ProxyAppOptions } from "./app.ts";
import { parseRoutes } from "./routes.ts";

/** An app whose upstream requests are recorded and served by `respond`. */
function setup(
  respond: (request: Request) => Response | Promise<Response> = () =>
    new Response("upstream"),
  options: Partial<ProxyAppOptions> = {},
) {
  const calls: Request[] = [];
  const log = createMemoryLog();
  const app = createProxyApp({
    routes: parseRoutes("api=https://upstream.example/base"),
    log,
    fetch: (input, init) => {
      const request = new Request(input, init);
      calls.push(request);
      return Promise.resolve(respond(request));
    },
    ...options,
  });
  return { app, calls, log };
}

Deno.test("createProxyApp() relays the method, path, query and headers", async () => {
  const { app, calls } = setup(() =>
    new Response("hi", {
      status: 201,
      headers: {
        "x-upstream": "1",
        "connection": "keep-alive, x-private",
        "x-private": "hop",
        "keep-alive": "timeout=5",
      },
    })
  );
  const response = await app.request("/api/a/b?c=1", {
    method: "PUT",
    body: "payload",
    headers: {
      "x-custom": "yes",
      "connection": "x-drop",
      "x-drop": "1",
      "content-length": "7", // as a request off the network declares it
    },
  });
  assert.equal(response.status, 201);
  assert.equal(await response.text(), "hi");
  assert.equal(response.headers.get("x-upstream"), "1");
  assert.equal(response.headers.get("x-private"), null);
  assert.equal(response.headers.get("keep-alive"), null);
  assert.equal(response.headers.get("access-control-allow-origin"), "*");
  assert.equal(response.headers.get("access-control-expose-headers"), "*");
  const [call] = calls;
  assert.equal(call?.method, "PUT");
  assert.equal(call?.url, "https://upstream.example/base/a/b?c=1");
  assert.equal(call?.headers.get("x-custom"), "yes");
  assert.equal(call?.headers.get("x-drop"), null);
  assert.equal(call?.headers.get("authorization"), null);
  assert.equal(await call?.text(), "payload");
});

Deno.test("createProxyApp() makes no upstream request for refused requests", async (t) => {
  const { app, calls } = setup();
  await t.step("OPTIONS responds to a preflight", async () => {
    const response = await app.request("/api/x", {
      method: "OPTIONS",
      headers: { "access-control-request-headers": "x-a, content-type" },
    });
    assert.equal(response.status, 204);
    assert.equal(await response.text(), "");
    assert.equal(response.headers.get("access-control-allow-origin"), "*");
    assert.equal(
      response.headers.get("access-control-allow-headers"),
      "x-a, content-type",
    );
    assert.match(
      response.headers.get("access-control-allow-methods") ?? "",
      /GET, POST, PUT, DELETE/,
    );
    assert.equal(response.headers.get("access-control-max-age"), "86400");
  });
  for (const method of ["PATCH", "HEAD", "PROPFIND"]) {
    await t.step(`${method} gets 405 with an empty body`, async () => {
      const response = await app.request("/api/x", { method });
      assert.equal(response.status, 405);
      assert.equal(await response.text(), "");
    });
  }
  await t.step("an unmatched path gets 404 with an empty body", async () => {
    for (const path of ["/", "/apix/y", "/other", "/healthz/"]) {
      const response = await app.request(path);
      assert.equal(response.status, 404, path);
      assert.equal(await response.text(), "");
    }
  });
  await t.step("a hostile path gets 400 with a JSON message", async () => {
    // (new Request() resolves "%2e%2e" itself: the raw forms are tested over TCP.)
    const response = await app.request("http://proxy/api/..%2fsecret");
    assert.equal(response.status, 400);
    assert.deepEqual(await response.json(), {
      message:
        'Invalid path "/api/..%2fsecret": it holds an encoded slash or backslash',
    });
  });
  assert.equal(calls.length, 0);
});

Deno.test("createProxyApp() responds to /healthz unless a route has that name", async () => {
  const own = setup();
  const response = await own.app.request("/healthz");
  assert.deepEqual(await response.json(), { status: "ok" });
  assert.equal(response.headers.get("access-control-allow-origin"), "*");
  assert.equal(own.calls.length, 0);

  const shadowed = setup(() => new Response("upstream health"), {
    routes: parseRoutes("healthz=http://h.example/status"),
  });
  const relayed = await shadowed.app.request("/healthz");
  assert.equal(await relayed.text(), "upstream health");
  assert.equal(shadowed.calls[0]?.url, "http://h.example/status");
});

Deno.test("createProxyApp() sets the configured allowed origin", async () => {
  const { app } = setup(
    () =>
      new Response("x", { headers: { "access-control-allow-origin": "*" } }),
    { allowOrigin: "https://page.example" },
  );
  for (const method of ["GET", "OPTIONS", "PATCH"]) {
    const response = await app.request("/api/x", { method });
    await response.body?.cancel();
    assert.equal(
      response.headers.get("access-control-allow-origin"),
      "https://page.example",
    );
  }
  const relayed = await app.request("/api/x");
  await relayed.body?.cancel();
  assert.equal(
    relayed.headers.get("access-control-expose-headers"),
    "content-type",
  );
});

Deno.test("createProxyApp() with a list of origins echoes a listed one and refuses others without an upstream request", async () => {
  const { app, calls } = setup(() => new Response("x"), {
    allowOrigin: ["https://a.example", "https://b.example"],
  });
  for (const method of ["GET", "OPTIONS", "POST", "PATCH"]) {
    const listed = await app.request("/api/x", {
      method,
      headers: { origin: "https://b.example" },
    });
    await listed.body?.cancel();
    assert.equal(
      listed.headers.get("access-control-allow-origin"),
      "https://b.example",
      method,
    );
    assert.match(listed.headers.get("vary") ?? "", /Origin/, method);
    const refused = await app.request("/api/x", {
      method,
      headers: {
        origin: "https://evil.example",
        "access-control-request-method": "GET",
      },
    });
    assert.equal(refused.status, 403, method);
    assert.equal(refused.headers.has("access-control-allow-origin"), false);
    assert.deepEqual(await refused.json(), {
      message:
        'Origin "https://evil.example" is not allowed: PROXY_ALLOW_ORIGIN does not list it',
    });
  }
  assert.equal(calls.length, 2, "GET and POST from the listed origin only");
  const noOrigin = await app.request("/api/x");
  assert.equal(await noOrigin.text(), "x");
  assert.equal(calls.length, 3);
  // The proxy's own responses follow the same rule.
  for (const path of ["/healthz", "/nowhere"]) {
    const own = await app.request(path, {
      headers: { origin: "https://b.example" },
    });
    await own.body?.cancel();
    assert.equal(
      own.headers.get("access-control-allow-origin"),
      "https://b.example",
      path,
    );
    assert.match(own.headers.get("vary") ?? "", /Origin/, path);
    const plain = await app.request(path);
    await plain.body?.cancel();
    assert.equal(
      plain.headers.get("access-control-allow-origin"),
      "https://a.example",
      path,
    );
  }
});

Deno.test("createProxyApp() adds a route's parameters and headers, on that route only", async () => {
  const { app, calls, log } = setup(
    (request) =>
      new Response(null, {
        status: 302,
        headers: { location: `${request.url.replace(/x\?/, "y?")}` },
      }),
    {
      routes: parseRoutes(
        "api=https://upstream.example/base,free=https://upstream.example/base",
      ),
      additions: new Map([["api", {
        query: [["key", "sekret-123"]],
        headers: [["x-key", "hdr-sekret-456"]],
      }]]),
    },
  );
  const response = await app.request("/api/x?key=mine&q=1", {
    headers: { "x-key": "mine" },
  });
  assert.equal(response.headers.get("location"), "/api/y?q=1");
  assert.equal(
    calls[0]?.url,
    "https://upstream.example/base/x?q=1&key=sekret-123",
  );
  assert.equal(calls[0]?.headers.get("x-key"), "hdr-sekret-456");
  await app.request("/free/x?key=mine", { headers: { "x-key": "mine" } });
  assert.equal(calls[1]?.url, "https://upstream.example/base/x?key=mine");
  assert.equal(calls[1]?.headers.get("x-key"), "mine");
  assert.ok(
    log.entries.every(({ message }) => !message.includes("sekret")),
    JSON.stringify(log.entries),
  );
});

Deno.test("createProxyApp() maps upstream failures to 502 and 504", async (t) => {
  await t.step("502 when the upstream request fails", async () => {
    const { app, log } = setup(() => {
      throw new TypeError("connection refused");
    });
    const response = await app.request("/api/x");
    assert.equal(response.status, 502);
    // fetch's TypeError does not say whether the upstream was reached.
    assert.deepEqual(await response.json(), {
      message:
        'Upstream of route "api" is unreachable or sent an invalid HTTP response',
    });
    assert.match(log.at("WARNING")[0] ?? "", /connection refused/);
  });
  await t.step(
    "the logged reason leaves out the query (it may hold keys)",
    async () => {
      const { app, log } = setup((request) => {
        throw new TypeError(
          `error sending request for url (${request.url}): connection refused`,
        );
      });
      const response = await app.request("/api/x?q=(a)&appid=s3cret");
      assert.equal(response.status, 502);
      assert.equal(
        log.at("WARNING")[0],
        'Upstream of route "api" is unreachable or sent an invalid HTTP response: error sending request for url (https://upstream.example/base/x?…): connection refused',
      );
    },
  );
  await t.step(
    "502 that names an invalid response, not a network problem",
    async () => {
      const { app, log } = setup(() => {
        throw new InvalidResponseError(
          "Invalid header line from the server: no colon",
        );
      });
      const response = await app.request("/api/x");
      assert.equal(response.status, 502);
      assert.deepEqual(await response.json(), {
        message: 'Upstream of route "api" sent an invalid HTTP response',
      });
      assert.deepEqual(log.at("WARNING"), [
        'Upstream of route "api" sent an invalid HTTP response: Invalid header line from the server: no colon',
      ]);
    },
  );
  await t.step(
    "504 when the upstream is slower than the time-out",
    async () => {
      const { app } = setup(
        (request) =>
          new Promise((_, reject) =>
            request.signal.addEventListener(
              "abort",
              () => reject(request.signal.reason),
            )
          ),
        { timeoutMs: 50 },
      );
      const response = await app.request("/api/x");
      assert.equal(response.status, 504);
      assert.deepEqual(await response.json(), {
        message: 'Upstream of route "api" did not respond within 50 ms',
      });
    },
  );
});

Deno.test("createProxyApp() drops a coding fetch already decoded", async () => {
  const { app } = setup(() =>
    new Response("plain", {
      headers: { "content-encoding": "gzip", "content-length": "5" },
    })
  );
  const response = await app.request("/api/x");
  assert.equal(response.headers.get("content-encoding"), null);
  assert.equal(await response.text(), "plain");
});

Deno.test("createProxyApp() adds itself to Via and refuses a request that names it", async () => {
  const { app, calls, log } = setup(() => new Response("ok"), {
    pseudonym: "homewire-proxy-test",
  });
  const first = await app.request("/api/x", { headers: { via: "1.0 front" } });
  assert.equal(first.status, 200);
  await first.body?.cancel();
  assert.equal(
    calls[0]?.headers.get("via"),
    "1.0 front, 1.1 homewire-proxy-test",
  );
  // The same request, come back round a route that points at this proxy.
  const looped = await app.request("/api/x", {
    headers: { via: calls[0]!.headers.get("via")! },
  });
  assert.equal(looped.status, 508);
  assert.equal(looped.headers.get("access-control-allow-origin"), "*");
  assert.deepEqual(await looped.json(), {
    message:
      "This request already passed through this proxy (its Via says so): a route in PROXY_ROUTES points back at the proxy",
  });
  assert.equal(calls.length, 1);
  assert.equal(log.at("WARNING").length, 1);
});

Deno.test("createProxyApp() refuses a GET with a body instead of dropping it", async () => {
  const { app, calls } = setup();
  const response = await app.fetch(
    new Request("http://localhost/api/search", {
      headers: { "content-length": "12" },
    }),
  );
  assert.equal(response.status, 400);
  assert.match((await response.json()).message, /GET request with a body/);
  const plain = await app.request("/api/search", {
    headers: { "content-length": "0" },
  });
  assert.equal(plain.status, 200);
  await plain.body?.cancel();
  assert.equal(calls.length, 1);
});

Deno.test("createProxyApp() relays a POST that declares no body without one", async () => {
  const { app, calls } = setup();
  // Deno hands the handler an empty body for a POST that has none.
  const response = await app.request("/api/x", { method: "POST", body: "" });
  assert.equal(response.status, 200);
  await response.body?.cancel();
  assert.equal(calls[0]?.body, null);
  assert.equal(calls[0]?.headers.get("transfer-encoding"), null);
});

Deno.test("createProxyApp() keeps cookies between the client and the proxy's host", async () => {
  const { app, calls } = setup(() =>
    new Response("ok", {
      headers: [["set-cookie", "upstream=1; Path=/"], ["set-cookie2", "old=1"]],
    })
  );
  const response = await app.request("/api/x", {
    headers: { cookie: "other-app-session=s3cret", cookie2: '$Version="1"' },
  });
  assert.equal(await response.text(), "ok");
  assert.equal(response.headers.get("set-cookie"), null);
  assert.equal(response.headers.get("set-cookie2"), null);
  assert.equal(calls[0]?.headers.get("cookie"), null);
  assert.equal(calls[0]?.headers.get("cookie2"), null);
});

Deno.test("createProxyApp() points a redirect within the route's base at the proxy", async (t) => {
  const cases: [string, string, string][] = [
    ["a relative path", "/base/target?page=2#top", "/api/target?page=2#top"],
    ["a relative reference", "c", "/api/a/c"],
    ["an absolute URL", "https://upstream.example/base/t", "/api/t"],
    [
      "another origin",
      "https://other.example/base/t",
      "https://other.example/base/t",
    ],
    [
      "a path outside the base, made absolute",
      "/login",
      "https://upstream.example/login",
    ],
  ];
  for (const [name, location, expected] of cases) {
    await t.step(name, async () => {
      const { app } = setup(() =>
        new Response(null, {
          status: 302,
          headers: { location, "content-location": location },
        })
      );
      const response = await app.request("http://proxy.local:8002/api/a/b");
      assert.equal(response.status, 302);
      assert.equal(response.headers.get("location"), expected);
      assert.equal(response.headers.get("content-location"), expected);
    });
  }
});

Deno.test("createProxyApp() with a cache serves a repeated GET from memory and still refuses hostile paths", async () => {
  const { app, calls } = setup((request) => new Response(request.url), {
    cacheMs: 60_000,
  });
  for (let i = 0; i < 3; i++) {
    const response = await app.request("/api/x?q=1");
    assert.equal(await response.text(), "https://upstream.example/base/x?q=1");
    assert.equal(response.headers.get("x-cache"), i === 0 ? "MISS" : "HIT");
    const hostile = await app.request("/api/a%2f..%2fsecret");
    assert.equal(hostile.status, 400);
    await hostile.body?.cancel();
  }
  assert.equal(calls.length, 1);
});

Deno.test("createProxyApp() relays through one handler, no middleware, unless origins are listed", () => {
  // Hono's one-handler path is what keeps the relay fast (deno task bench proxy).
  const any = setup().app;
  assert.deepEqual(
    any.routes.map(({ method, path }) => `${method} ${path}`),
    ["GET /healthz", "GET /readyz", "ALL /*"],
  );
  const listed = setup(undefined, { allowOrigin: ["https://a.example"] }).app;
  assert.deepEqual(
    listed.routes.map(({ method, path }) => `${method} ${path}`),
    ["ALL /*", "GET /healthz", "GET /readyz", "ALL /*"],
  );
});

Deno.test("createProxyApp() counts upstream requests, cache hits and refused origins when given metrics", async () => {
  const registry = createRegistry();
  let fail = false;
  const { app } = setup(() => {
    if (fail) throw new TypeError("connection refused");
    return new Response("upstream", {
      headers: { "cache-control": "max-age=60" },
    });
  }, {
    cacheMs: 60_000,
    allowOrigin: ["https://a.example"],
    metrics: registry.with({ role: "proxy" }),
  });
  for (let i = 0; i < 2; i++) {
    // Read whole: a response is stored once its body has come.
    await (await app.request("/api/a", {
      headers: { origin: "https://a.example" },
    })).text();
  }
  fail = true;
  await (await app.request("/api/b", {
    headers: { origin: "https://a.example" },
  })).body?.cancel();
  assert.equal(
    (await app.request("/api/a", {
      headers: { origin: "https://evil.example" },
    }))
      .status,
    403,
  );
  assert.equal((await app.request("/readyz")).status, 200);
  const text = await registry.render();
  for (
    const line of [
      'homewire_proxy_upstream_requests_total{role="proxy",route="api",outcome="2xx"} 1',
      'homewire_proxy_upstream_requests_total{role="proxy",route="api",outcome="error"} 1',
      'homewire_proxy_cache_hits_total{role="proxy",route="api"} 1',
      'homewire_proxy_cache_misses_total{role="proxy",route="api"} 2',
      'homewire_proxy_cache_served_bytes_total{role="proxy",route="api"} 8',
      'homewire_proxy_cache_bytes{role="proxy"} 8',
      'homewire_proxy_refused_origins_total{role="proxy"} 1',
      'homewire_proxy_upstream_duration_seconds_count{role="proxy",route="api"} 2',
      'homewire_http_requests_total{role="proxy",route="/*",method="GET",status_class="2xx"} 2',
      'homewire_http_requests_total{role="proxy",route="/*",method="GET",status_class="5xx"} 1',
    ]
  ) {
    assert.ok(text.includes(`${line}\n`), `${line} in:\n${text}`);
  }
});

Deno.test("createProxyApp() builds its per-request DEBUG line only when DEBUG is on", async () => {
  for (const debugging of [false, true]) {
    const log = createMemoryLog();
    const asked: string[] = [];
    const { app } = setup(undefined, {
      log: {
        ...log,
        enabled: (level) => {
          asked.push(level);
          return level !== "debug" || debugging;
        },
      },
    });
    const response = await app.request("/api/items?key=1");
    assert.equal(response.status, 200);
    assert.deepEqual(asked, ["debug"]);
    assert.deepEqual(
      log.at("DEBUG"),
      debugging
        ? ['GET on route "api" to https://upstream.example/base/items?…']
        : [],
    );
  }
});

Deno.test("createProxyApp() responds to a failure of a relayed request as Hono would", async () => {
  for (const allowOrigin of ["*", "https://a.example"]) {
    const log = createMemoryLog();
    const { app, calls } = setup(undefined, {
      allowOrigin,
      log: {
        ...log,
        enabled: () => {
          throw new Error("broken log");
        },
      },
    });
    const response = await app.request("/api/items", {
      headers: { origin: "https://a.example" },
    });
    assert.equal(response.status, 500);
    assert.deepEqual(await response.json(), {
      message: "Internal server error",
    });
    assert.equal(
      response.headers.get("access-control-allow-origin"),
      allowOrigin,
    );
    assert.deepEqual(log.at("ERROR"), [
      "GET /api/items failed: broken log",
    ]);
    assert.equal(calls.length, 0);
    // The other requests are still answered after a failure.
    assert.equal((await app.request("/healthz")).status, 200);
    assert.equal(
      (await app.request("/api/x", { method: "PATCH" })).status,
      405,
    );
    assert.equal((await app.request("/nowhere")).status, 404);
    const head = await app.request("/api/items", { method: "HEAD" });
    assert.equal(head.status, 405);
  }
});
