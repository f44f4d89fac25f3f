import assert from "node:assert/strict";
import { startStore } from "./_test_store.ts";
import { createLineSender } from "./line_sender.ts";
import { tsdbTarget } from "./tsdb_target.ts";

const LINES = ["a,location=in value=1 1", "b,location=out value=2i 2"];

Deno.test("createLineSender() posts v1 batches to /write with basic auth", async () => {
  const store = startStore();
  try {
    const send = createLineSender(tsdbTarget({
      host: "127.0.0.1",
      port: store.port,
      api: "v1",
      database: "home",
      username: "pi",
      password: "pw",
    }));
    const signal = new AbortController().signal;
    assert.deepEqual(await send(LINES, signal), { status: 204, text: "" });
    assert.deepEqual(store.requests, [{
      url: `http://127.0.0.1:${store.port}/write?db=home&precision=ms`,
      auth: `Basic ${btoa("pi:pw")}`,
      contentType: "text/plain; charset=utf-8",
      encoding: null,
    }]);
    assert.deepEqual(store.bodies, [LINES.join("\n")]);
    store.statuses.push(400);
    assert.deepEqual(await send(LINES, signal), {
      status: 400,
      text: '{"error":"failure 400"}',
    });
  } finally {
    await store.close();
  }
});

Deno.test("createLineSender() posts v2 batches to /api/v2/write with the token", async () => {
  const store = startStore();
  try {
    const target = tsdbTarget({
      host: "127.0.0.1",
      port: store.port,
      api: "v2",
      database: "home",
      org: "my org",
      bucket: "a&b",
      token: "t0k",
    });
    const send = createLineSender(target);
    const signal = new AbortController().signal;
    // Large enough for the library's gzip threshold, were it to compress.
    const many = Array.from({ length: 100 }, (_, i) => `${LINES[0]}${i}`);
    assert.deepEqual(await send(many, signal), { status: 204, text: "" });
    assert.equal(store.requests.length, 1);
    assert.deepEqual(store.requests[0], {
      url:
        `http://127.0.0.1:${store.port}/api/v2/write?org=my%20org&bucket=a%26b&precision=ms`,
      auth: "Token t0k",
      contentType: "text/plain; charset=utf-8",
      encoding: null,
    });
    // The URL logged is the URL requested.
    assert.equal(store.requests[0]?.url, target.label);
    assert.deepEqual(store.lines(), many);

    // Refusals and outages come back to the writer, never retried here.
    store.statuses.push(400, 503);
    assert.deepEqual(await send(LINES, signal), {
      status: 400,
      text: '{"error":"failure 400"}',
    });
    assert.equal((await send(LINES, signal)).status, 503);
    assert.equal(store.requests.length, 3);
  } finally {
    await store.close();
  }
});

Deno.test("createLineSender() rejects when the signal aborts or the store is gone", async () => {
  const store = startStore();
  const target = tsdbTarget({
    host: "127.0.0.1",
    port: store.port,
    api: "v2",
    database: "home",
  });
  try {
    store.statuses.push("hang");
    const controller = new AbortController();
    const sent = createLineSender(target)(LINES, controller.signal);
    setTimeout(() => controller.abort(new Error("too slow")), 50);
    await assert.rejects(sent);
  } finally {
    await store.close();
  }
  await assert.rejects(
    createLineSender(target)(LINES, new AbortController().signal),
  );
});

Deno.test("createLineSender() returns a redirect instead of following it with the credentials", async () => {
  const elsewhere = startStore();
  const redirecting = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () =>
      new Response(null, {
        status: 307,
        headers: {
          location: `http://127.0.0.1:${elsewhere.port}/write?db=home`,
        },
      }),
  );
  try {
    const send = createLineSender(tsdbTarget({
      host: "127.0.0.1",
      port: redirecting.addr.port,
      api: "v1",
      database: "home",
      username: "pi",
      password: "pw",
    }));
    const reply = await send(LINES, new AbortController().signal);
    assert.equal(reply.status, 307);
    assert.deepEqual(elsewhere.requests, []);
  } finally {
    await redirecting.shutdown();
    await elsewhere.close();
  }
});

Deno.test("createLineSender() masks the credentials a store echoes, before anything cuts them", async () => {
  // A store (or a proxy before it) quoting the request back in its refusal.
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      await request.body?.cancel();
      const auth = request.headers.get("authorization") ?? "";
      const pair = auth.startsWith("Basic ")
        ? atob(auth.slice(6))
        : auth.slice(6);
      return Response.json({
        error: `bad credentials ${auth} (${pair}; ${pair.split(":")[1]})`,
      }, { status: 401 });
    },
  );
  try {
    const host = `http://127.0.0.1:${server.addr.port}`;
    const v1 = createLineSender(tsdbTarget({
      host,
      api: "v1",
      database: "home",
      username: "pi",
      password: "JSONPASS1",
    }));
    const v2 = createLineSender(tsdbTarget({
      host,
      api: "v2",
      database: "home",
      token: "T0KEN-s3cret",
    }));
    const signal = new AbortController().signal;
    const fromV1 = await v1(LINES, signal);
    assert.equal(fromV1.status, 401);
    assert.equal(
      fromV1.text,
      '{"error":"bad credentials Basic **** (****; ****)"}',
    );
    const fromV2 = await v2(LINES, signal);
    assert.doesNotMatch(fromV2.text, /T0KEN|s3cret/);
    assert.match(fromV2.text, /bad credentials Token \*\*\*\*/);
  } finally {
    await server.shutdown();
  }
});
