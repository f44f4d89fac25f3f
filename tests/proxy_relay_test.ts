/**
 * The proxy app on a real `Deno.serve`, relaying to real upstreams on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { createMemoryLog } from "../lib/_test_memory_log.ts";
import { createHttp1Client } from "../lib/http1/client.ts";
import { parseRoutes } from "../services/proxy/routes.ts";
import {
  type Echo,
  serveTestProxy,
  startEchoUpstream,
} from "../services/proxy/_test_helpers.ts";
import { requireBinary } from "./_test_helpers.ts";
import { makeTestTls } from "./_test_tls.ts";

const MiB = 1024 * 1024;

/** An upstream with special behaviours, plus hooks the tests wait on. */
function startBehaviourUpstream() {
  const hang = Promise.withResolvers<void>();
  const firstUploadChunk = Promise.withResolvers<void>();
  const firstChunkSeen = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const path = new URL(request.url).pathname;
      if (path === "/b/status") {
        return new Response("short and stout", {
          status: 418,
          headers: { "x-kind": "teapot" },
        });
      }
      if (path === "/b/empty") return new Response(null, { status: 204 });
      if (path === "/b/moved") {
        // A redirect within the route's base, relative as servers often send it.
        return new Response(null, {
          status: 301,
          headers: { location: "/b/status?from=moved#top" },
        });
      }
      if (path === "/b/moved-absolute") {
        return new Response(null, {
          status: 307,
          headers: {
            location: `${new URL(request.url).origin}/b/status`,
            "content-location": "status",
          },
        });
      }
      if (path === "/b/redirect") {
        return new Response(null, {
          status: 302,
          headers: { location: "http://127.0.0.1:1/elsewhere" },
        });
      }
      if (path === "/b/gzip") {
        const body = new Blob(["zipped ".repeat(100)]).stream()
          .pipeThrough(new CompressionStream("gzip"));
        return new Response(body, { headers: { "content-encoding": "gzip" } });
      }
      if (path === "/b/hang") {
        await hang.promise;
        return new Response("late");
      }
      if (path === "/b/big") {
        const size = Number(new URL(request.url).searchParams.get("bytes"));
        return new Response(patternStream(size));
      }
      if (path === "/b/count") {
        // Responds only after the whole upload; tells the test about the first chunk.
        let total = 0;
        const digest = new Uint32Array(256);
        for await (const chunk of request.body!) {
          if (total === 0) firstUploadChunk.resolve();
          for (const byte of chunk) digest[byte]! += 1;
          total += chunk.length;
        }
        return Response.json({ total, sum: checksum(digest) });
      }
      if (path === "/b/drip") {
        // Sends one chunk, then waits until the client has seen it before ending.
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(new TextEncoder().encode("first;"));
            await firstChunkSeen.promise;
            controller.enqueue(new TextEncoder().encode("second"));
            controller.close();
          },
        });
        return new Response(body);
      }
      if (path === "/b/break") {
        // Sends one chunk, then breaks the connection.
        let sent = false;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent) return controller.error(new Error("upstream broke"));
            sent = true;
            controller.enqueue(new TextEncoder().encode("first;"));
          },
        });
        return new Response(body);
      }
      if (path === "/b/head-only") {
        // The head, then nothing until the test ends.
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            await hang.promise;
            controller.close();
          },
        });
        return new Response(body);
      }
      if (path === "/b/stall") {
        // Sends one chunk, then nothing until the test ends.
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(new TextEncoder().encode("first;"));
            await hang.promise;
            controller.close();
          },
        });
        return new Response(body);
      }
      return new Response("unknown", { status: 500 });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    firstUploadChunk,
    firstChunkSeen,
    async stop() {
      hang.resolve();
      firstChunkSeen.resolve();
      await server.shutdown();
    },
  };
}

/** `size` bytes of a repeating 0..250 pattern, in 64 KiB chunks. */
function patternStream(size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      const length = Math.min(64 * 1024, size - sent);
      if (length <= 0) return controller.close();
      controller.enqueue(
        Uint8Array.from({ length }, (_, i) => (sent + i) % 251),
      );
      sent += length;
    },
  });
}

function checksum(histogram: Uint32Array): number {
  return histogram.reduce(
    (sum, count, byte) => (sum + count * byte) % 65521,
    0,
  );
}

/** Rejects when `promise` has not settled within `ms` (a deadlock guard). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: not within ${ms} ms`)),
      ms,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The two transports the proxy can relay with: its own client, and `fetch`. */
type Transport = "pooled client" | "fetch";

async function withProxy(
  transport: Transport,
  fn: (ctx: {
    proxy: string;
    echo: ReturnType<typeof startEchoUpstream>;
    behaviour: ReturnType<typeof startBehaviourUpstream>;
    log: ReturnType<typeof createMemoryLog>;
  }) => Promise<void>,
  clientTimeoutMs?: number,
) {
  const echo = startEchoUpstream();
  const behaviour = startBehaviourUpstream();
  const log = createMemoryLog();
  const client = createHttp1Client();
  const server = serveTestProxy({
    http1: transport === "fetch" ? undefined : client,
    routes: parseRoutes(
      // Port 1 (tcpmux) is closed: a port free a moment ago could become the proxy's.
      `echo=${echo.url}/base/,b=${behaviour.url}/b,bee=${behaviour.url}/b,closed=http://127.0.0.1:1/x`,
    ),
    log,
    timeoutMs: 1000,
    clientTimeoutMs,
  });
  try {
    await fn({ proxy: server.url, echo, behaviour, log });
  } finally {
    await server.stop();
    client.close();
    await behaviour.stop();
    await echo.stop();
  }
}

for (const transport of ["pooled client", "fetch"] as const) {
  Deno.test(`[${transport}] proxy relays method, rest of path, query, headers and body`, async (t) => {
    await withProxy(transport, async ({ proxy, echo }) => {
      for (const method of ["GET", "POST", "PUT", "DELETE"]) {
        await t.step(method, async () => {
          const body = method === "GET" ? undefined : `{"method":"${method}"}`;
          const response = await fetch(
            `${proxy}/echo/a/b.json?x=1&y=two%20words`,
            {
              method,
              body,
              headers: {
                "x-custom": "kept",
                "content-type": "application/json",
              },
            },
          );
          assert.equal(response.status, 200);
          assert.equal(
            response.headers.get("access-control-allow-origin"),
            "*",
          );
          assert.equal(response.headers.get("x-upstream"), "echo");
          const seen: Echo = await response.json();
          assert.equal(seen.method, method);
          assert.equal(seen.path, "/base/a/b.json");
          assert.equal(seen.query, "?x=1&y=two%20words");
          assert.equal(seen.headers["x-custom"], "kept");
          assert.equal(seen.headers["content-type"], "application/json");
          assert.equal(seen.headers["host"], new URL(echo.url).host);
          assert.equal(seen.body, body ?? "");
          if (body && transport === "pooled client") {
            // A declared length goes on with the streamed body (fetch chunks it).
            assert.equal(seen.headers["content-length"], String(body.length));
          }
        });
      }
      await t.step("no credentials are added", async () => {
        const response = await fetch(`${proxy}/echo/`);
        const seen: Echo = await response.json();
        assert.equal(seen.path, "/base/");
        for (const name of ["authorization", "cookie", "proxy-authorization"]) {
          assert.equal(seen.headers[name], undefined, name);
        }
      });
      await t.step("cookies go neither way", async () => {
        const response = await fetch(`${proxy}/echo/cookie`, {
          headers: { cookie: "other-app=s3cret", cookie2: '$Version="1"' },
        });
        assert.equal(response.headers.get("set-cookie"), null);
        const seen: Echo = await response.json();
        assert.equal(seen.headers["cookie"], undefined);
        assert.equal(seen.headers["cookie2"], undefined);
      });
    });
  });

  Deno.test(`[${transport}] proxy returns the upstream status, headers and body as they are`, async (t) => {
    await withProxy(transport, async ({ proxy }) => {
      await t.step("418 with its own header", async () => {
        const response = await fetch(`${proxy}/b/status`);
        assert.equal(response.status, 418);
        assert.equal(response.headers.get("x-kind"), "teapot");
        assert.equal(await response.text(), "short and stout");
      });
      await t.step("204 without a body", async () => {
        const response = await fetch(`${proxy}/b/empty`, { method: "DELETE" });
        assert.equal(response.status, 204);
        assert.equal(await response.text(), "");
      });
      await t.step("a redirect is returned, not followed", async () => {
        const response = await fetch(`${proxy}/b/redirect`, {
          redirect: "manual",
        });
        assert.equal(response.status, 302);
        assert.equal(
          response.headers.get("location"),
          "http://127.0.0.1:1/elsewhere",
        );
        await response.body?.cancel();
      });
      await t.step(
        "a redirect within the base leads back to the proxy",
        async () => {
          // Route "bee" has the base /b: a path left as it is would name route "b".
          const moved = await fetch(`${proxy}/bee/moved`, {
            redirect: "manual",
          });
          assert.equal(moved.status, 301);
          assert.equal(
            moved.headers.get("location"),
            "/bee/status?from=moved#top",
          );
          await moved.body?.cancel();
          const absolute = await fetch(`${proxy}/bee/moved-absolute`, {
            redirect: "manual",
          });
          assert.equal(absolute.headers.get("location"), "/bee/status");
          assert.equal(absolute.headers.get("content-location"), "/bee/status");
          await absolute.body?.cancel();
          // Followed as a browser does: the proxy relays the second call too.
          const followed = await fetch(`${proxy}/bee/moved-absolute`);
          assert.equal(followed.url, `${proxy}/bee/status`);
          assert.equal(followed.status, 418);
          assert.equal(await followed.text(), "short and stout");
        },
      );
      await t.step("a gzip response arrives readable", async () => {
        const response = await fetch(`${proxy}/b/gzip`);
        assert.equal(await response.text(), "zipped ".repeat(100));
      });
    });
  });

  Deno.test(`[${transport}] proxy streams bodies both ways`, async (t) => {
    await withProxy(transport, async ({ proxy, behaviour }) => {
      await t.step(
        "the upload reaches the upstream before it ends",
        async () => {
          const upload = Promise.withResolvers<void>();
          const body = new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(new Uint8Array(1000).fill(7));
              await upload.promise;
              controller.enqueue(new Uint8Array(24).fill(7));
              controller.close();
            },
          });
          const pending = fetch(`${proxy}/b/count`, { method: "POST", body });
          await within(
            behaviour.firstUploadChunk.promise,
            10_000,
            "first upload chunk",
          );
          upload.resolve();
          const response = await pending;
          assert.deepEqual(await response.json(), {
            total: 1024,
            sum: (1024 * 7) % 65521,
          });
        },
      );
      await t.step(
        "the response reaches the client before it ends",
        async () => {
          const response = await fetch(`${proxy}/b/drip`);
          const reader = response.body!.pipeThrough(new TextDecoderStream())
            .getReader();
          const first = await within(
            reader.read(),
            10_000,
            "first response chunk",
          );
          assert.equal(first.value, "first;");
          behaviour.firstChunkSeen.resolve();
          let rest = "";
          for (
            let part = await reader.read();
            !part.done;
            part = await reader.read()
          ) {
            rest += part.value;
          }
          assert.equal(rest, "second");
        },
      );
      await t.step(
        "a 16 MiB upload and a 16 MiB response go through intact",
        async () => {
          const size = 16 * MiB;
          const up = await fetch(`${proxy}/b/count`, {
            method: "PUT",
            body: patternStream(size),
          });
          const expected = Uint32Array.from(
            { length: 256 },
            (_, byte) =>
              byte < 251
                ? Math.floor(size / 251) + (byte < size % 251 ? 1 : 0)
                : 0,
          );
          assert.deepEqual(await up.json(), {
            total: size,
            sum: checksum(expected),
          });

          const down = await fetch(`${proxy}/b/big?bytes=${size}`);
          let total = 0;
          let mismatch = -1;
          for await (const chunk of down.body!) {
            for (let i = 0; i < chunk.length; i++) {
              if (mismatch < 0 && chunk[i] !== (total + i) % 251) {
                mismatch = total + i;
              }
            }
            total += chunk.length;
          }
          assert.equal(total, size);
          assert.equal(mismatch, -1);
        },
      );
    });
  });

  Deno.test(`[${transport}] proxy returns 502 for an unreachable upstream and 504 past the time-out`, async (t) => {
    await withProxy(transport, async ({ proxy, log }) => {
      await t.step("502 for a closed port", async () => {
        const response = await fetch(`${proxy}/closed/x`);
        assert.equal(response.status, 502);
        assert.equal(response.headers.get("access-control-allow-origin"), "*");
        // fetch's TypeError does not say which: the proxy does not guess.
        assert.deepEqual(await response.json(), {
          message: transport === "fetch"
            ? 'Upstream of route "closed" is unreachable or sent an invalid HTTP response'
            : 'Upstream of route "closed" is unreachable',
        });
      });
      await t.step("504 for an upstream that hangs", async () => {
        const response = await fetch(`${proxy}/b/hang`);
        assert.equal(response.status, 504);
        assert.deepEqual(await response.json(), {
          message: 'Upstream of route "b" did not respond within 1000 ms',
        });
      });
      await t.step("an upstream silent mid-response is cut short", async () => {
        const response = await fetch(`${proxy}/b/stall`);
        assert.equal(response.status, 200);
        await assert.rejects(
          within(response.text(), 10_000, "the stalled response"),
          (error: Error) => !/not within/.test(error.message),
        );
        assert.match(
          log.at("WARNING").at(-1) ?? "",
          /^Upstream of route "b" sent nothing for 1000 ms in the middle of its response: cut short$/,
        );
      });
      await t.step(
        "a client gone mid-upload ends the upstream request at once",
        async () => {
          const warnings = log.at("WARNING").length;
          const conn = await Deno.connect({
            hostname: "127.0.0.1",
            port: Number(new URL(proxy).port),
          });
          await conn.write(
            new TextEncoder().encode(
              `POST /echo/upload HTTP/1.1\r\nhost: x\r\ncontent-length: 100000\r\n\r\n${
                "x".repeat(1000)
              }`,
            ),
          );
          await new Promise((resolve) => setTimeout(resolve, 100));
          conn.close();
          for (
            let i = 0;
            i < 100 && log.at("DEBUG").every((l) => !/went away/.test(l));
            i++
          ) {
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          assert.ok(
            log.at("DEBUG").some((line) =>
              line ===
                'Client of route "echo" went away during its upload: upstream request ended'
            ),
            log.at("DEBUG").join("\n"),
          );
          assert.equal(log.at("WARNING").length, warnings);
        },
      );

      await t.step(
        "an upstream breaking off its response is logged",
        async () => {
          const response = await fetch(`${proxy}/b/break`);
          assert.equal(response.status, 200);
          await assert.rejects(
            within(response.text(), 10_000, "the broken response"),
            (error: Error) => !/not within/.test(error.message),
          );
          // The proxy logs when it notices, a moment after the client sees the cut.
          for (let i = 0; i < 50 && log.at("WARNING").length < 4; i++) {
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          assert.match(
            log.at("WARNING").at(-1) ?? "",
            /^Upstream of route "b" broke off its response: /,
          );
        },
      );
      assert.equal(log.at("WARNING").length, 4);
      assert.equal(log.at("ERROR").length, 0);
    });
  });
}

for (const transport of ["pooled client", "fetch"] as const) {
  Deno.test(`[${transport}] proxy does not count a slow client against the upstream`, async (t) => {
    await withProxy(transport, async ({ proxy, log }) => {
      await t.step(
        "an upload with pauses past the time-out goes through",
        async () => {
          const body = new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(new Uint8Array(1000).fill(3));
              await new Promise((resolve) => setTimeout(resolve, 1400));
              controller.enqueue(new Uint8Array(24).fill(3));
              controller.close();
            },
          });
          const response = await fetch(`${proxy}/b/count`, {
            method: "POST",
            body,
          });
          assert.equal(response.status, 200);
          assert.deepEqual(await response.json(), {
            total: 1024,
            sum: (1024 * 3) % 65521,
          });
        },
      );
      await t.step(
        "a client that stops reading past the time-out gets the whole response",
        async () => {
          const size = 4 * MiB;
          const response = await fetch(`${proxy}/b/big?bytes=${size}`);
          const reader = response.body!.getReader();
          let total = (await reader.read()).value?.length ?? 0;
          await new Promise((resolve) => setTimeout(resolve, 1400));
          for (
            let part = await reader.read();
            !part.done;
            part = await reader.read()
          ) {
            total += part.value.length;
          }
          assert.equal(total, size);
        },
      );
      assert.deepEqual(log.at("WARNING"), []);
    });
  });
}

for (const transport of ["pooled client", "fetch"] as const) {
  Deno.test(`[${transport}] proxy cuts short an upstream that sends its head and then nothing`, async () => {
    await withProxy(transport, async ({ proxy, log }) => {
      const response = await fetch(`${proxy}/b/head-only`);
      assert.equal(response.status, 200);
      await assert.rejects(
        within(response.text(), 10_000, "the silent response"),
        (error: Error) => !/not within/.test(error.message),
      );
      assert.match(
        log.at("WARNING").at(-1) ?? "",
        /^Upstream of route "b" sent nothing for 1000 ms in the middle of its response: cut short$/,
      );
    });
  });
}

Deno.test("proxy ends the call of a client that stalls past its limit: 408 mid-upload", async () => {
  const echo = startEchoUpstream();
  const log = createMemoryLog();
  const client = createHttp1Client();
  const server = serveTestProxy({
    http1: client,
    routes: parseRoutes(`echo=${echo.url}/base`),
    log,
    timeoutMs: 1000,
    clientTimeoutMs: 300,
  });
  const conn = await Deno.connect({
    hostname: "127.0.0.1",
    port: server.port,
  });
  try {
    await conn.write(
      new TextEncoder().encode(
        "POST /echo/upload HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n0123456789",
      ),
    );
    const buffer = new Uint8Array(4096);
    const read = await within(conn.read(buffer), 5000, "the 408");
    const raw = new TextDecoder().decode(buffer.subarray(0, read ?? 0));
    assert.match(raw, /^HTTP\/1\.1 408 /);
    assert.match(raw, /The client sent or read nothing for 300 ms/);
    assert.deepEqual(log.at("WARNING"), [
      'Client of route "echo" sent or read nothing for 300 ms: call ended',
    ]);
  } finally {
    conn.close();
    await server.stop();
    client.close();
    await echo.stop();
  }
});

for (const transport of ["pooled client", "fetch"] as const) {
  Deno.test(`[${transport}] proxy cuts off a client that stops reading past its limit`, async () => {
    await withProxy(transport, async ({ proxy, log }) => {
      const size = 64 * MiB;
      const response = await fetch(`${proxy}/b/big?bytes=${size}`);
      const reader = response.body!.getReader();
      let total = (await reader.read()).value?.length ?? 0;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await assert.rejects(async () => {
        for (
          let part = await reader.read();
          !part.done;
          part = await reader.read()
        ) {
          total += part.value.length;
        }
      });
      assert.ok(total < size, `${total} bytes`);
      assert.deepEqual(log.at("WARNING"), [
        'Client of route "b" sent or read nothing for 400 ms: call ended',
      ]);
    }, 400);
  });
}

const openssl = requireBinary("openssl", ["/usr/bin/openssl"]);

Deno.test({
  name:
    "[fetch, https] proxy cuts off a client that stops reading past its limit",
  ignore: openssl.ignore,
  async fn() {
    const tls = await makeTestTls(openssl.path);
    const size = 64 * MiB;
    const upstream = Deno.serve(
      {
        hostname: "127.0.0.1",
        port: 0,
        cert: tls.cert,
        key: tls.key,
        onListen: () => {},
      },
      () => new Response(patternStream(size)),
    );
    const client = Deno.createHttpClient({ caCerts: [tls.ca] });
    const log = createMemoryLog();
    const server = serveTestProxy({
      fetch: (input, init) => fetch(input, { ...init, client }),
      routes: parseRoutes(`s=https://127.0.0.1:${upstream.addr.port}/api`),
      log,
      timeoutMs: 1000,
      clientTimeoutMs: 400,
    });
    try {
      // A raw client: it reads the head, then nothing for a while, so the proxy's
      // writes back up and it stops pulling from the upstream.
      const conn = await Deno.connect({
        hostname: "127.0.0.1",
        port: server.port,
      });
      await conn.write(
        new TextEncoder().encode(
          "GET /s/big HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
        ),
      );
      const buffer = new Uint8Array(64 * 1024);
      let total = (await conn.read(buffer)) ?? 0;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      for (
        let n = await conn.read(buffer);
        n !== null;
        n = await conn.read(buffer)
      ) {
        total += n;
      }
      conn.close();
      assert.ok(total < size, `${total} bytes`);
      assert.deepEqual(log.at("WARNING"), [
        'Client of route "s" sent or read nothing for 400 ms: call ended',
      ]);
    } finally {
      await server.stop();
      client.close();
      await upstream.shutdown();
    }
  },
});
