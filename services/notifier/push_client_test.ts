import assert from "node:assert/strict";
import { freePort } from "../../tests/_helpers.ts";
import { createPushClient } from "./push_client.ts";
import { PushError } from "./push_error.ts";

const TOKEN = "o.s3cr3t-T0KEN";

/** A stand-in of the push API on 127.0.0.1: records requests, answers `reply`. */
function standIn(reply: (request: Request) => Response | Promise<Response>) {
  const seen: {
    method: string;
    path: string;
    headers: Headers;
    body: string;
  }[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      seen.push({
        method: request.method,
        path: new URL(request.url).pathname,
        headers: request.headers,
        body: await request.text(),
      });
      return reply(request);
    },
  );
  return {
    seen,
    url: `http://127.0.0.1:${server.addr.port}`,
    close: () => server.shutdown(),
  };
}

async function pushError(promise: Promise<unknown>): Promise<PushError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof PushError, `not a PushError: ${error}`);
    assert.doesNotMatch(error.message, /s3cr3t/);
    return error;
  }
  assert.fail("expected a rejection");
}

Deno.test("createPushClient()", async (t) => {
  let answer: (request: Request) => Response | Promise<Response> = () =>
    Response.json({ iden: "ujpah72o0", type: "note", active: true });
  const api = standIn((request) => answer(request));
  const push = createPushClient({
    baseUrl: `${api.url}/`,
    token: TOKEN,
    timeoutMs: 300,
  });

  await t.step(
    "posts the note as JSON with Basic auth and returns the reply",
    async () => {
      const reply = await push.sendNote({ title: "Door ✓", body: "a/b c" });
      assert.deepEqual(reply, {
        iden: "ujpah72o0",
        type: "note",
        active: true,
      });
      const request = api.seen.at(-1)!;
      assert.equal(request.method, "POST");
      assert.equal(request.path, "/v2/pushes");
      assert.equal(
        request.headers.get("authorization"),
        `Basic ${btoa(`${TOKEN}:`)}`,
      );
      assert.equal(request.headers.get("access-token"), TOKEN);
      assert.match(
        request.headers.get("content-type") ?? "",
        /^application\/json/,
      );
      assert.deepEqual(JSON.parse(request.body), {
        type: "note",
        title: "Door ✓",
        body: "a/b c",
      });
    },
  );

  await t.step(
    "an error status is kind http with the upstream message",
    async () => {
      answer = () =>
        Response.json({
          error: {
            code: "invalid_access_token",
            message: "Access token is missing or invalid.",
            type: "invalid_request",
          },
        }, { status: 401 });
      const error = await pushError(push.sendNote({ title: "t", body: "b" }));
      assert.equal(error.kind, "http");
      assert.equal(error.status, 401);
      assert.equal(
        error.message,
        "Push API answered HTTP 401: Access token is missing or invalid",
      );
    },
  );

  await t.step(
    "an error status without JSON names the status alone",
    async () => {
      answer = () => new Response("Service Unavailable", { status: 503 });
      const error = await pushError(push.sendNote({ title: "t", body: "b" }));
      assert.equal(error.message, "Push API answered HTTP 503");
    },
  );

  await t.step(
    "a success reply that is not JSON is kind invalid-reply",
    async () => {
      answer = () => new Response("<html>", { status: 200 });
      const error = await pushError(push.sendNote({ title: "t", body: "b" }));
      assert.equal(error.kind, "invalid-reply");
      assert.equal(error.status, 200);
    },
  );

  await t.step("a reply slower than timeoutMs is kind timeout", async () => {
    answer = (request) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve(Response.json({})), 10_000);
        request.signal.addEventListener("abort", () => {
          clearTimeout(timer);
          resolve(Response.json({}));
        });
      });
    const error = await pushError(push.sendNote({ title: "t", body: "b" }));
    assert.equal(error.kind, "timeout");
    assert.equal(error.message, "Push API did not answer within 300 ms");
  });

  await api.close();
});

Deno.test("createPushClient() against an unreachable port fails with kind network", async () => {
  const push = createPushClient({
    baseUrl: `http://127.0.0.1:${freePort()}`,
    token: TOKEN,
    timeoutMs: 2000,
  });
  const error = await pushError(push.sendNote({ title: "t", body: "b" }));
  assert.equal(error.kind, "network");
  assert.match(error.message, /^Push API unreachable: .*refused/i);
});

Deno.test("createPushClient() uses the injected fetch", async () => {
  const calls: string[] = [];
  const push = createPushClient({
    baseUrl: "https://push.example",
    token: TOKEN,
    timeoutMs: 1000,
    fetch: (input) => {
      calls.push(String(input));
      return Promise.resolve(Response.json({ ok: true }));
    },
  });
  assert.deepEqual(await push.sendNote({ title: "t", body: "b" }), {
    ok: true,
  });
  assert.deepEqual(calls, ["https://push.example/v2/pushes"]);
});

Deno.test("createPushClient() does not follow a redirect, so the token stays home", async () => {
  const elsewhere = standIn(() => Response.json({ iden: "stolen" }));
  const api = standIn(() =>
    new Response(null, {
      status: 302,
      headers: { location: `${elsewhere.url}/collect` },
    })
  );
  try {
    const push = createPushClient({
      baseUrl: api.url,
      token: TOKEN,
      timeoutMs: 2000,
    });
    const error = await pushError(push.sendNote({ title: "t", body: "b" }));
    assert.equal(error.kind, "http");
    assert.equal(error.status, 302);
    assert.equal(elsewhere.seen.length, 0);
  } finally {
    await api.close();
    await elsewhere.close();
  }
});
