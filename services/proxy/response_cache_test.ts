import assert from "node:assert/strict";
import { createResponseCache, type RouteUpstream } from "./response_cache.ts";
import { parseRoutes } from "./routes.ts";

const [API, OTHER] = parseRoutes(
  "api=http://upstream/v1,other=http://upstream/v1",
);

/** An upstream request counting its calls; `response` builds each response. */
function upstream(
  respond: (request: Request, n: number) => Response | Promise<Response> = (
    _r,
    n,
  ) => new Response(`response ${n}`),
) {
  const calls: string[] = [];
  const call: RouteUpstream = (request, _route, target) => {
    calls.push(`${request.method} ${String(target)}`);
    return Promise.resolve(respond(request, calls.length));
  };
  return { call, calls };
}

function clock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => now += ms };
}

const get = (headers: Record<string, string> = {}) =>
  new Request("http://localhost/api/x", { headers });
const target = (path = "/v1/x") => new URL(`http://upstream${path}`);

async function read(response: Response) {
  return {
    body: await response.text(),
    cache: response.headers.get("x-cache"),
    age: response.headers.get("age"),
  };
}

Deno.test("createResponseCache() serves a stored response until it expires, with Age and X-Cache", async () => {
  const { call, calls } = upstream();
  const time = clock();
  const cached = createResponseCache(call, {
    ttlMs: 10_000,
    maxBytes: 1 << 20,
    now: time.now,
  });
  assert.deepEqual(await read(await cached(get(), API!, target())), {
    body: "response 1",
    cache: "MISS",
    age: "0",
  });
  time.advance(3_500);
  assert.deepEqual(await read(await cached(get(), API!, target())), {
    body: "response 1",
    cache: "HIT",
    age: "3",
  });
  time.advance(6_500);
  assert.deepEqual(await read(await cached(get(), API!, target())), {
    body: "response 2",
    cache: "MISS",
    age: "0",
  });
  assert.equal(calls.length, 2);
});

Deno.test("createResponseCache() keys by target URL and route, never across routes", async () => {
  const { call, calls } = upstream();
  const cached = createResponseCache(call, {
    ttlMs: 10_000,
    maxBytes: 1 << 20,
  });
  await (await cached(get(), API!, target("/v1/x?a=1"))).text();
  await (await cached(get(), API!, target("/v1/x?a=2"))).text();
  const other = await read(await cached(get(), OTHER!, target("/v1/x?a=1")));
  assert.equal(other.cache, "MISS");
  const again = await read(await cached(get(), API!, target("/v1/x?a=1")));
  assert.deepEqual([again.cache, again.body], ["HIT", "response 1"]);
  assert.equal(calls.length, 3);
});

Deno.test("createResponseCache() follows the upstream's Cache-Control and Age", async (t) => {
  const cases: [Record<string, string>, boolean, string][] = [
    [{ "cache-control": "no-store" }, false, "no-store"],
    [{ "cache-control": "private, max-age=60" }, false, "private"],
    [{ "cache-control": "no-cache" }, false, "no-cache"],
    [{ "cache-control": "max-age=0" }, false, "max-age=0"],
    [{ vary: "*" }, false, "Vary: *"],
    [{ "cache-control": "public, max-age=60" }, true, "public"],
    [{ age: "bogus" }, false, "malformed Age"],
  ];
  for (const [headers, stored, name] of cases) {
    await t.step(name, async () => {
      const { call, calls } = upstream(() => new Response("x", { headers }));
      const cached = createResponseCache(call, {
        ttlMs: 60_000,
        maxBytes: 1 << 20,
      });
      await (await cached(get(), API!, target())).text();
      const second = await cached(get(), API!, target());
      await second.text();
      assert.equal(second.headers.get("x-cache"), stored ? "HIT" : "MISS");
      assert.equal(calls.length, stored ? 1 : 2);
    });
  }
  await t.step(
    "max-age shortens the time, less the upstream's Age",
    async () => {
      const time = clock();
      const { call, calls } = upstream((_r, n) =>
        new Response(`a${n}`, {
          headers: { "cache-control": "max-age=5", age: "2" },
        })
      );
      const cached = createResponseCache(call, {
        ttlMs: 60_000,
        maxBytes: 1 << 20,
        now: time.now,
      });
      const first = await read(await cached(get(), API!, target()));
      assert.deepEqual([first.cache, first.age], ["MISS", "2"]);
      time.advance(2_000);
      const hit = await read(await cached(get(), API!, target()));
      assert.deepEqual([hit.cache, hit.age, hit.body], ["HIT", "4", "a1"]);
      time.advance(1_000);
      assert.equal(
        (await read(await cached(get(), API!, target()))).cache,
        "MISS",
      );
      assert.equal(calls.length, 2);
    },
  );
  await t.step("only 200 responses to GET are stored", async () => {
    const { call, calls } = upstream((request) =>
      new Response("x", { status: request.method === "GET" ? 404 : 200 })
    );
    const cached = createResponseCache(call, {
      ttlMs: 60_000,
      maxBytes: 1 << 20,
    });
    for (const method of ["GET", "GET", "POST", "POST"]) {
      const response = await cached(
        new Request("http://localhost/api/x", {
          method,
          body: method === "POST" ? "b" : null,
        }),
        API!,
        target(),
      );
      await response.text();
      if (method === "POST") {
        assert.equal(response.headers.has("x-cache"), false);
      }
    }
    assert.equal(calls.length, 4);
  });
  await t.step(
    "a client's own Authorization is not shared, unless public",
    async () => {
      const { call, calls } = upstream();
      const cached = createResponseCache(call, {
        ttlMs: 60_000,
        maxBytes: 1 << 20,
      });
      for (let i = 0; i < 2; i++) {
        await (await cached(
          get({ authorization: "Bearer mine" }),
          API!,
          target(),
        )).text();
      }
      assert.equal(calls.length, 2);
      const routeAdds = createResponseCache(call, {
        ttlMs: 60_000,
        maxBytes: 1 << 20,
        addsAuthorization: (route) => route.name === "api",
      });
      for (let i = 0; i < 2; i++) {
        await (await routeAdds(
          get({ authorization: "Bearer route" }),
          API!,
          target(),
        )).text();
      }
      assert.equal(calls.length, 3);
    },
  );
});

Deno.test("createResponseCache() keys by the headers the response varies on", async () => {
  const { call, calls } = upstream((request, n) =>
    new Response(`${request.headers.get("accept-language")} ${n}`, {
      headers: { vary: "Accept-Language" },
    })
  );
  const cached = createResponseCache(call, {
    ttlMs: 60_000,
    maxBytes: 1 << 20,
  });
  const ask = async (language: string) =>
    await read(
      await cached(get({ "accept-language": language }), API!, target()),
    );
  assert.deepEqual((await ask("en")).body, "en 1");
  assert.deepEqual((await ask("de")).body, "de 2");
  assert.deepEqual(await ask("en"), { body: "en 1", cache: "HIT", age: "0" });
  assert.deepEqual((await ask("de")).cache, "HIT");
  assert.equal(calls.length, 2);
});

Deno.test("createResponseCache() bounds its bytes and skips bodies over a sixteenth of them", async () => {
  const { call, calls } = upstream((request) =>
    new Response(
      "x".repeat(Number(new URL(request.url).searchParams.get("size"))),
    )
  );
  const cached = createResponseCache(call, { ttlMs: 60_000, maxBytes: 1600 });
  const ask = async (size: number, name = "a") => {
    const response = await cached(
      new Request(`http://localhost/api/${name}?size=${size}`),
      API!,
      target(`/v1/${name}?size=${size}`),
    );
    await response.text();
    return response.headers.get("x-cache");
  };
  await ask(101);
  assert.equal(await ask(101), "MISS", "over a sixteenth: not stored");
  await ask(100);
  assert.equal(await ask(100), "HIT");
  for (let i = 0; i < 16; i++) await ask(100, `n${i}`);
  // 17 responses of 100 bytes were stored in 1600: the least recently used went.
  assert.equal(await ask(100), "MISS");
  assert.equal(await ask(100, "n15"), "HIT");
  assert.equal(calls.length, 2 + 1 + 16 + 1);
});

Deno.test("createResponseCache() makes one upstream request for 50 concurrent misses", async () => {
  const gate = Promise.withResolvers<void>();
  const { call, calls } = upstream(async () => {
    await gate.promise;
    return new Response("shared");
  });
  const cached = createResponseCache(call, {
    ttlMs: 60_000,
    maxBytes: 1 << 20,
  });
  const pending = Array.from(
    { length: 50 },
    () => cached(get(), API!, target()),
  );
  gate.resolve();
  const read50 = await Promise.all(pending.map(async (a) => read(await a)));
  assert.equal(calls.length, 1);
  assert.ok(read50.every((response) => response.body === "shared"));
  assert.equal(
    read50.filter((response) => response.cache === "MISS").length,
    1,
  );
});

Deno.test("createResponseCache() lets waiting misses call for themselves when the response is not stored", async () => {
  const gate = Promise.withResolvers<void>();
  const { call, calls } = upstream(async (_r, n) => {
    await gate.promise;
    return new Response(`private ${n}`, {
      headers: { "cache-control": "private" },
    });
  });
  const cached = createResponseCache(call, {
    ttlMs: 60_000,
    maxBytes: 1 << 20,
  });
  const pending = Array.from(
    { length: 5 },
    () => cached(get(), API!, target()),
  );
  gate.resolve();
  const bodies = await Promise.all(pending.map(async (a) => (await a).text()));
  assert.equal(calls.length, 5);
  assert.equal(new Set(bodies).size, 5);
});

Deno.test("createResponseCache() drops a target's responses after a POST there", async () => {
  const { call, calls } = upstream();
  const cached = createResponseCache(call, {
    ttlMs: 60_000,
    maxBytes: 1 << 20,
  });
  await (await cached(get(), API!, target())).text();
  await (await cached(
    new Request("http://localhost/api/x", { method: "POST", body: "b" }),
    API!,
    target(),
  )).text();
  assert.equal(
    (await cached(get(), API!, target())).headers.get("x-cache"),
    "MISS",
  );
  assert.equal(calls.length, 3);
});

Deno.test("createResponseCache() does not store a response whose client went away", async () => {
  const { call, calls } = upstream(() =>
    new Response(
      new ReadableStream({
        pull(controller) {
          controller.enqueue(new Uint8Array(10));
        },
      }),
    )
  );
  const cached = createResponseCache(call, {
    ttlMs: 60_000,
    maxBytes: 1 << 20,
  });
  const first = await cached(get(), API!, target());
  const reader = first.body!.getReader();
  await reader.read();
  await reader.cancel();
  const second = await cached(get(), API!, target());
  assert.equal(second.headers.get("x-cache"), "MISS");
  await second.body!.cancel();
  assert.equal(calls.length, 2);
});

Deno.test("createResponseCache() names Age and X-Cache in a listed Access-Control-Expose-Headers", async () => {
  const { call } = upstream(() =>
    new Response("x", {
      headers: { "access-control-expose-headers": "content-type, x-upstream" },
    })
  );
  const cached = createResponseCache(call, {
    ttlMs: 60_000,
    maxBytes: 1 << 20,
  });
  for (let i = 0; i < 2; i++) {
    const response = await cached(get(), API!, target());
    await response.text();
    assert.equal(
      response.headers.get("access-control-expose-headers"),
      "content-type, x-upstream, age, x-cache",
    );
  }
});

Deno.test("createResponseCache() stores none of the unstored headers of the response it keeps", async () => {
  const { call, calls } = upstream((_request, n) =>
    new Response(`response ${n}`, {
      headers: {
        "ratelimit": `"client";r=${10 - n};t=60`,
        "ratelimit-policy": `"client";q=10;w=60`,
        "etag": '"v1"',
      },
    })
  );
  const cached = createResponseCache(call, {
    ttlMs: 10_000,
    maxBytes: 1 << 20,
    unstored: ["ratelimit", "ratelimit-policy"],
  });
  const miss = await cached(get(), API!, target());
  // The client whose request was relayed gets its own headers as they came.
  assert.equal(miss.headers.get("ratelimit"), `"client";r=9;t=60`);
  await miss.text();
  const hit = await cached(get(), API!, target());
  assert.equal(hit.headers.get("x-cache"), "HIT");
  assert.equal(hit.headers.get("ratelimit"), null);
  assert.equal(hit.headers.get("ratelimit-policy"), null);
  assert.equal(hit.headers.get("etag"), '"v1"');
  assert.equal(await hit.text(), "response 1");
  assert.equal(calls.length, 1);
});
