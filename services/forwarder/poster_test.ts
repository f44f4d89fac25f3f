import assert from "node:assert/strict";
import { createHttp1Client } from "../../lib/http1/client.ts";
import { exchangeOver } from "../../lib/http1/exchange.ts";
import { createPoster } from "./poster.ts";
import { startSink } from "./_test_sink.ts";

// The forwarder posts through the pooled HTTP/1.1 client; `fetch` is the default.
for (const transport of ["fetch", "pooled HTTP/1.1 client"] as const) {
  Deno.test(`createPoster() on ${transport}`, async (t) => {
    const http = transport === "fetch" ? undefined : createHttp1Client();
    const exchange = http && exchangeOver(http.request);
    const sink = startSink({
      reply: (r) =>
        r.body.includes("moved")
          ? new Response("gone", {
            status: r.body.includes("later") ? 307 : 301,
            headers: {
              location: "https://new.example.com/in",
              ...(r.body.includes("later") ? { "retry-after": "5" } : {}),
            },
          })
          : new Response("ok", {
            status: r.body.includes("teapot")
              ? 418
              : r.body.includes("busy")
              ? 503
              : 200,
            headers: {
              location: "https://ignored.example.com/",
              ...(r.body.includes("busy") ? { "retry-after": "3" } : {}),
            },
          }),
      delayMs: (r) => r.body.includes("slow") ? 2000 : 0,
    });
    const post = createPoster({
      endpoint: sink.url,
      token: "Bearer abc",
      timeoutMs: 300,
      exchange,
    });

    await t.step(
      "posts the Body as a JSON string with the headers",
      async () => {
        assert.deepEqual(await post('{"a": 1} é ✓'), { status: 200 });
        const request = sink.requests.at(-1)!;
        assert.equal(request.method, "POST");
        assert.equal(request.headers.get("authorization"), "Bearer abc");
        assert.equal(request.headers.get("content-type"), "application/json");
        assert.equal(request.body, '"{\\"a\\": 1} é ✓"');
      },
    );

    await t.step(
      "resolves with an error status instead of throwing",
      async () => {
        assert.deepEqual(await post("teapot"), { status: 418 });
      },
    );

    await t.step(
      "reuses the connection although it does not read the reply",
      async () => {
        for (let i = 0; i < 3; i++) {
          assert.deepEqual(await post(`again ${i}`), { status: 200 });
        }
        const ports = new Set(sink.requests.slice(-3).map((r) => r.remotePort));
        assert.equal(ports.size, 1);
      },
    );

    await t.step("posts the Body unchanged in raw mode", async () => {
      const raw = createPoster({
        endpoint: sink.url,
        token: "t",
        timeoutMs: 1000,
        bodyMode: "raw",
        exchange,
      });
      assert.deepEqual(await raw('{"a":1}'), { status: 200 });
      assert.equal(sink.requests.at(-1)!.body, '{"a":1}');
    });

    await t.step(
      "resolves with a redirect's Location and does not follow it",
      async () => {
        const before = sink.requests.length;
        assert.deepEqual(await post("moved"), {
          status: 301,
          location: "https://new.example.com/in",
        });
        assert.equal(sink.requests.length, before + 1);
      },
    );

    await t.step(
      "adds the extra headers, computed from the body as sent",
      async () => {
        let given: string | undefined;
        await post("signed é", undefined, (sent) => {
          given = sent;
          return [["webhook-id", "m1"], ["X-Aws-Sqsd-Queue", "jobs"]];
        });
        const request = sink.requests.at(-1)!;
        assert.equal(given, request.body);
        assert.equal(given, '"signed é"');
        assert.equal(request.headers.get("webhook-id"), "m1");
        assert.equal(request.headers.get("x-aws-sqsd-queue"), "jobs");
        assert.equal(request.headers.get("authorization"), "Bearer abc");
      },
    );

    await t.step("resolves with the reply's Retry-After", async () => {
      assert.deepEqual(await post("busy"), { status: 503, retryAfter: "3" });
      // A redirect may be a retried status too: its Retry-After is the wait.
      assert.deepEqual(await post("moved, later"), {
        status: 307,
        location: "https://new.example.com/in",
        retryAfter: "5",
      });
    });

    await t.step(
      "rejects when no reply comes within the time-out",
      async () => {
        await assert.rejects(post("slow"), /No reply within 300 ms/);
      },
    );

    await t.step("rejects when the connection is refused", async () => {
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (listener.addr as Deno.NetAddr).port;
      listener.close();
      const refused = createPoster({
        endpoint: `http://127.0.0.1:${port}/`,
        token: "t",
        timeoutMs: 1000,
        exchange,
      });
      await assert.rejects(refused("x"));
    });

    http?.close();
    await sink.stop();
  });
}
