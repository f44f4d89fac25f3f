import assert from "node:assert/strict";
import { createDeliver, retryAfter } from "./deliver.ts";
import { parseTargetUrl, type ServiceBases } from "./targets/mod.ts";

const MESSAGE = { title: "t", body: "b", type: "info" } as const;

/** A stand-in responding to each request with the next of `responses` (the last repeats). */
function standIn(responses: (() => Response | Promise<Response>)[]) {
  const seen: Request[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      seen.push(request);
      await request.arrayBuffer();
      const respond =
        responses[Math.min(seen.length - 1, responses.length - 1)]!;
      return await respond();
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  return { seen, url, close: () => server.shutdown() };
}

function bases(url: string): ServiceBases {
  return { pushbullet: url, pushover: url, telegram: url, discord: url };
}

Deno.test("createDeliver() retries a 5xx, then succeeds", async () => {
  const api = standIn([
    () => new Response("busy", { status: 503 }),
    () => Response.json({ ok: true }),
  ]);
  try {
    const retried: string[] = [];
    const deliver = createDeliver({
      bases: bases(api.url),
      timeoutMs: 5000,
      retryBaseMs: 10,
      onRetry: (target) => retried.push(target.scheme),
    });
    const delivery = await deliver(parseTargetUrl("pbul://o.tok"), MESSAGE);
    assert.deepEqual(delivery, {
      target: "pbul://****",
      ok: true,
      status: 200,
      reply: '{"ok":true}',
    });
    assert.equal(api.seen.length, 2);
    assert.deepEqual(retried, ["pbul"]);
  } finally {
    await api.close();
  }
});

Deno.test("createDeliver() honours Retry-After of a 429", async () => {
  const api = standIn([
    () => new Response(null, { status: 429, headers: { "retry-after": "1" } }),
    () => Response.json({}),
  ]);
  try {
    const deliver = createDeliver({
      bases: bases(api.url),
      timeoutMs: 5000,
      retryBaseMs: 10,
    });
    const started = Date.now();
    const delivery = await deliver(parseTargetUrl("pbul://o.tok"), MESSAGE);
    assert.equal(delivery.ok, true);
    assert.ok(Date.now() - started >= 900, "waited for Retry-After");
  } finally {
    await api.close();
  }
});

Deno.test("createDeliver() gives up when Retry-After ends past the time limit", async () => {
  const api = standIn([
    () => new Response(null, { status: 429, headers: { "retry-after": "60" } }),
  ]);
  try {
    const deliver = createDeliver({ bases: bases(api.url), timeoutMs: 2000 });
    const delivery = await deliver(parseTargetUrl("pbul://o.tok"), MESSAGE);
    assert.deepEqual(delivery, {
      target: "pbul://****",
      ok: false,
      status: 429,
      error: "Push API returned HTTP 429",
    });
    assert.equal(api.seen.length, 1);
  } finally {
    await api.close();
  }
});

Deno.test("createDeliver() does not retry a 4xx, and scrubs secrets from the upstream message", async () => {
  const api = standIn([
    () =>
      Response.json({ description: "Bad token 123:SeCrEt" }, { status: 401 }),
  ]);
  try {
    const deliver = createDeliver({ bases: bases(api.url), timeoutMs: 2000 });
    const delivery = await deliver(
      parseTargetUrl("tgram://123:SeCrEt/42"),
      MESSAGE,
    );
    assert.equal(delivery.ok, false);
    assert.equal(delivery.status, 401);
    assert.equal(delivery.error, "Telegram returned HTTP 401: Bad token ****");
    assert.equal(api.seen.length, 1);
  } finally {
    await api.close();
  }
});

Deno.test("createDeliver() stops retrying after maxAttempts", async () => {
  const api = standIn([() => new Response(null, { status: 500 })]);
  try {
    const deliver = createDeliver({
      bases: bases(api.url),
      timeoutMs: 5000,
      retryBaseMs: 5,
      maxAttempts: 3,
    });
    const delivery = await deliver(
      parseTargetUrl(`json://${new URL(api.url).host}/in`),
      MESSAGE,
    );
    assert.equal(delivery.error, "JSON endpoint returned HTTP 500");
    assert.equal(api.seen.length, 3);
  } finally {
    await api.close();
  }
});

Deno.test("createDeliver() bounds the whole call by timeoutMs", async () => {
  const api = standIn([
    () => new Promise((r) => setTimeout(() => r(Response.json({})), 3000)),
  ]);
  try {
    const deliver = createDeliver({ bases: bases(api.url), timeoutMs: 300 });
    const delivery = await deliver(parseTargetUrl("pbul://o.tok"), MESSAGE);
    assert.deepEqual(delivery, {
      target: "pbul://****",
      ok: false,
      status: null,
      error: "Push API did not respond within 300 ms",
    });
  } finally {
    await api.close();
  }
});

Deno.test("createDeliver() retries connection errors, then reports the target unreachable", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  let calls = 0;
  const deliver = createDeliver({
    bases: bases(`http://127.0.0.1:${port}`),
    timeoutMs: 5000,
    retryBaseMs: 5,
    fetch: (input, init) => {
      calls++;
      return fetch(input, init);
    },
  });
  const delivery = await deliver(
    parseTargetUrl(`gotify://127.0.0.1:${port}/T0k`),
    MESSAGE,
  );
  assert.equal(calls, 3, "three attempts");
  assert.equal(delivery.ok, false);
  assert.equal(delivery.status, null);
  assert.match(delivery.error!, /^Gotify unreachable: /);
});

Deno.test("createDeliver() does not follow a redirect", async () => {
  const elsewhere = standIn([() => Response.json({})]);
  const api = standIn([
    () =>
      new Response(null, { status: 302, headers: { location: elsewhere.url } }),
  ]);
  try {
    const deliver = createDeliver({ bases: bases(api.url), timeoutMs: 2000 });
    const delivery = await deliver(parseTargetUrl("pbul://o.tok"), MESSAGE);
    assert.equal(delivery.status, 302);
    assert.equal(delivery.ok, false);
    assert.equal(elsewhere.seen.length, 0);
  } finally {
    await api.close();
    await elsewhere.close();
  }
});

Deno.test("retryAfter() reads seconds and HTTP dates", () => {
  assert.equal(retryAfter("3"), 3000);
  assert.equal(retryAfter(new Date(10_000).toUTCString(), 4_000), 6000);
  assert.equal(retryAfter(null), undefined);
  assert.equal(retryAfter("soon"), undefined);
});

Deno.test("createDeliver() keeps a token in the URL out of a connection error", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const deliver = createDeliver({
    bases: bases(`http://127.0.0.1:${port}`),
    timeoutMs: 5000,
    retryBaseMs: 5,
  });
  const delivery = await deliver(
    parseTargetUrl("tgram://123456:TgS3cretT0ken/42"),
    MESSAGE,
  );
  assert.match(delivery.error!, /^Telegram unreachable: /);
  assert.ok(!delivery.error!.includes("TgS3cretT0ken"), String(delivery.error));
});

Deno.test("createDeliver() quotes Pushover's errors", async () => {
  const api = standIn([
    () =>
      Response.json({
        user: "invalid",
        errors: [
          "user identifier is not a valid user, group, or subscribed user key",
        ],
        status: 0,
      }, { status: 400 }),
  ]);
  try {
    const deliver = createDeliver({ bases: bases(api.url), timeoutMs: 2000 });
    const delivery = await deliver(
      parseTargetUrl("pover://Us3rKey@AppT0ken"),
      MESSAGE,
    );
    assert.equal(
      delivery.error,
      "Pushover returned HTTP 400: user identifier is not a valid user, group, or subscribed user key",
    );
  } finally {
    await api.close();
  }
});

Deno.test("createDeliver() scrubs the Basic credentials a service echoes", async (t) => {
  // The stand-in echoes the Authorization header it was sent.
  const echoing = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      await request.arrayBuffer();
      return Response.json({
        error: {
          message: `Refused ${request.headers.get("authorization")}`,
        },
      }, { status: 401 });
    },
  );
  const host = `127.0.0.1:${echoing.addr.port}`;
  try {
    const deliver = createDeliver({
      bases: bases(`http://${host}`),
      timeoutMs: 2000,
    });
    for (
      const [url, secret] of [
        ["pbul://o.PbS3cret", "o.PbS3cret"],
        [`ntfy://me:NtfyS3cret@${host}/door`, "NtfyS3cret"],
        [`json://me:JsonS3cret@${host}/hook`, "JsonS3cret"],
      ] as const
    ) {
      await t.step(url.split(":")[0]!, async () => {
        const delivery = await deliver(parseTargetUrl(url), MESSAGE);
        assert.equal(delivery.status, 401);
        const user = url.startsWith("pbul") ? secret : "me";
        const credentials = btoa(
          `${user}:${url.startsWith("pbul") ? "" : secret}`,
        );
        assert.ok(
          !delivery.error!.includes(credentials),
          String(delivery.error),
        );
        assert.match(delivery.error!, /Refused Basic \*\*\*\*$/);
      });
    }
  } finally {
    await echoing.shutdown();
  }
});

Deno.test("createDeliver() keeps a percent-encoded secret of the URL out of a connection error", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const deliver = createDeliver({
    bases: bases(`http://127.0.0.1:${port}`),
    timeoutMs: 5000,
    retryBaseMs: 5,
  });
  const delivery = await deliver(
    parseTargetUrl(`json://127.0.0.1:${port}/hook?-apikey=Key%2FS3cret+x`),
    MESSAGE,
  );
  assert.match(delivery.error!, /^JSON endpoint unreachable: /);
  for (const form of ["Key/S3cret", "Key%2FS3cret", "S3cret"]) {
    assert.ok(!delivery.error!.includes(form), String(delivery.error));
  }
});

Deno.test("createDeliver() sends to every chat even when one refuses", async () => {
  const api = standIn([
    () =>
      Response.json({ ok: false, description: "Bad Request: chat not found" }, {
        status: 400,
      }),
    () => Response.json({ ok: true, result: { message_id: 1 } }),
  ]);
  try {
    const deliver = createDeliver({ bases: bases(api.url), timeoutMs: 2000 });
    const delivery = await deliver(
      parseTargetUrl("tgram://123:SeCrEt/11/22"),
      MESSAGE,
    );
    assert.equal(api.seen.length, 2);
    assert.deepEqual(delivery, {
      target: "tgram://****/11/22",
      ok: false,
      status: 400,
      error: "Telegram returned HTTP 400: Bad Request: chat not found",
    });
  } finally {
    await api.close();
  }
});

Deno.test("createDeliver() reads a reply only up to its bound, and the status decides", async () => {
  const chunk = new Uint8Array(64 * 1024).fill(97);
  const endless = (status: number) => () =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull: (controller) => controller.enqueue(chunk),
      }),
      { status },
    );
  const corruptGzip = () =>
    new Response(new Uint8Array([31, 139, 8, 0, 1, 2, 3, 4]), {
      headers: { "content-encoding": "gzip" },
    });
  for (
    const [what, responses, expected, requests] of [
      ["an accepted note with an endless reply", [endless(200)], {
        ok: true,
        status: 200,
        reply: "",
      }, 1],
      ["an accepted note with a corrupt gzip reply", [corruptGzip], {
        ok: true,
        status: 200,
        reply: "",
      }, 1],
      ["a refusal with an endless reply", [endless(400)], {
        ok: false,
        status: 400,
        error:
          "JSON endpoint returned HTTP 400: its reply unread: The response body is over 262144 bytes",
      }, 1],
      ["a 503 with an endless reply, retried", [
        endless(503),
        () => new Response(null, { status: 204 }),
      ], {
        ok: true,
        status: 204,
        reply: "",
      }, 2],
    ] as const
  ) {
    const api = standIn([...responses]);
    try {
      const deliver = createDeliver({
        bases: bases(api.url),
        timeoutMs: 5000,
        retryBaseMs: 1,
      });
      const host = new URL(api.url).host;
      const delivery = await deliver(
        parseTargetUrl(`json://${host}/hook`),
        MESSAGE,
      );
      assert.deepEqual(
        delivery,
        { target: `json://${host}/hook`, ...expected },
        what,
      );
      assert.equal(api.seen.length, requests, what);
    } finally {
      await api.close();
    }
  }
});
