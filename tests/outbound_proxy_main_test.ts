/**
 * The outbound proxy (`HTTP_PROXY`, `HTTPS_PROXY`, `NO_PROXY`) through `main.ts`,
 * against a real forward proxy (Debian's tinyproxy, started here): the proxy role
 * reaching http and https upstreams through it, and the forwarder reaching its
 * queue (fauxqs) and its endpoint (http, and https through `CONNECT`) through it;
 * `NO_PROXY=127.0.0.1` going around it; a proxy that refuses named, its
 * credentials never written.
 *
 * Loopback is not exempt from the proxy (as with Deno's `fetch`), so every upstream
 * can stay on 127.0.0.1: tinyproxy's log tells which requests went through it.
 */
import assert from "node:assert/strict";
import { startSink } from "../services/forwarder/_test_sink.ts";
import { startEchoUpstream } from "../services/proxy/_test_helpers.ts";
import { startFauxqs } from "./_test_fauxqs.ts";
import { freePort, type MainProcess, startMain } from "./_test_helpers.ts";
import { startTinyproxy, TINYPROXY } from "./_test_tinyproxy.ts";
import { makeTestTls } from "./_test_tls.ts";

const PASSWORD = "pr0xy-s3cret";

/** Asserts no line of `main` holds the proxy's password. */
function assertNoPassword(main: MainProcess): void {
  for (const line of [...main.stdout, ...main.stderr]) {
    assert.ok(!line.includes(PASSWORD), `the password was written: ${line}`);
  }
}

Deno.test({
  name: "proxy role reaches its upstreams through tinyproxy, or around it",
  ignore: TINYPROXY.ignore,
  async fn(t) {
    const tls = await makeTestTls();
    const dir = await Deno.makeTempDir({ prefix: "homewire-outbound-" });
    const caFile = `${dir}/ca.pem`;
    await Deno.writeTextFile(caFile, tls.ca);
    const echo = startEchoUpstream();
    const secure = Deno.serve(
      {
        hostname: "127.0.0.1",
        port: 0,
        cert: tls.cert,
        key: tls.key,
        onListen: () => {},
      },
      (request) => new Response(`secure ${new URL(request.url).pathname}`),
    );
    const securePort = secure.addr.port;
    const echoPort = new URL(echo.url).port;
    const tinyproxy = await startTinyproxy({ credentials: ["me", PASSWORD] });
    const run = async (
      env: Record<string, string>,
      check: (base: string, main: MainProcess) => Promise<void>,
    ) => {
      const port = freePort();
      const main = startMain(["proxy"], {
        env: {
          PROXY_ROUTES:
            `api=${echo.url}/base,sec=https://127.0.0.1:${securePort}`,
          PROXY_HOST: "127.0.0.1",
          PROXY_PORT: String(port),
          PROXY_ALLOW_ORIGIN: "*",
          DENO_CERT: caFile,
          ...env,
        },
      });
      try {
        await main.waitFor(/\[INFO\] proxy listening on/);
        await check(`http://127.0.0.1:${port}`, main);
      } finally {
        await main.stop();
        assertNoPassword(main);
      }
    };
    const proxyUrl = `http://me:${PASSWORD}@127.0.0.1:${tinyproxy.port}`;
    try {
      await t.step("http in absolute form, https through CONNECT", async () => {
        await run(
          { HTTP_PROXY: proxyUrl, https_proxy: proxyUrl },
          async (base, main) => {
            await main.waitFor(
              new RegExp(
                `\\[INFO\\] outbound proxy: http:// through http://\\*\\*\\*@127\\.0\\.0\\.1:${tinyproxy.port}, https:// through`,
              ),
            );
            const plain = await fetch(`${base}/api/items?page=2`);
            assert.equal(plain.status, 200);
            assert.equal((await plain.json()).path, "/base/items");
            const tunnelled = await fetch(`${base}/sec/deep/path`);
            assert.equal(tunnelled.status, 200);
            assert.equal(await tunnelled.text(), "secure /deep/path");
            const requests = await tinyproxy.requests();
            assert.ok(
              requests.includes(
                `GET http://127.0.0.1:${echoPort}/base/items?page=2 HTTP/1.1`,
              ),
              requests.join("\n"),
            );
            assert.ok(
              requests.includes(`CONNECT 127.0.0.1:${securePort} HTTP/1.1`),
              requests.join("\n"),
            );
          },
        );
      });
      await t.step("NO_PROXY=127.0.0.1 goes around it", async () => {
        const before = (await tinyproxy.requests()).length;
        await run(
          {
            HTTP_PROXY: proxyUrl,
            HTTPS_PROXY: proxyUrl,
            NO_PROXY: "127.0.0.1",
          },
          async (base) => {
            const plain = await fetch(`${base}/api/items`);
            assert.equal(plain.status, 200);
            await plain.body?.cancel();
            const tunnelled = await fetch(`${base}/sec/x`);
            assert.equal(await tunnelled.text(), "secure /x");
          },
        );
        assert.equal((await tinyproxy.requests()).length, before);
      });
      await t.step("a refusal is a 502 naming the proxy, masked", async () => {
        // Without credentials, tinyproxy returns 407; with wrong ones, 401 (which,
        // to a forwarded request, cannot be told from the upstream's own 401).
        const none = `http://127.0.0.1:${tinyproxy.port}`;
        const wrong = `http://me:not-${PASSWORD}@127.0.0.1:${tinyproxy.port}`;
        await run(
          { HTTP_PROXY: none, HTTPS_PROXY: wrong },
          async (base, main) => {
            for (const route of ["api", "sec"]) {
              const response = await fetch(`${base}/${route}/x`);
              assert.equal(response.status, 502);
              assert.match(
                (await response.json()).message,
                /outbound proxy refused/,
              );
            }
            const tiny = `127\\.0\\.0\\.1:${tinyproxy.port}`;
            await main.waitFor(
              new RegExp(
                `\\[WARNING\\] Upstream of route "api" .*Proxy "http://${tiny}" refused the request to 127\\.0\\.0\\.1:${echoPort}: 407`,
              ),
            );
            await main.waitFor(
              new RegExp(
                `\\[WARNING\\] Upstream of route "sec" .*Proxy "http://\\*\\*\\*@${tiny}" refused the request to 127\\.0\\.0\\.1:${securePort}: 40[17]`,
              ),
            );
          },
        );
      });
    } finally {
      await tinyproxy.stop();
      await echo.stop();
      await secure.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "forwarder reaches its queue and its endpoint through tinyproxy, or around it",
  ignore: TINYPROXY.ignore,
  async fn(t) {
    const fauxqs = await startFauxqs();
    const sink = startSink();
    const tinyproxy = await startTinyproxy({ credentials: ["me", PASSWORD] });
    const queuePort = new URL(fauxqs.endpoint).port;
    const sinkPort = new URL(sink.url).port;
    const proxyUrl = `http://me:${PASSWORD}@127.0.0.1:${tinyproxy.port}`;
    // An https endpoint, reached through the proxy's CONNECT tunnel.
    const tls = await makeTestTls();
    const dir = await Deno.makeTempDir({ prefix: "homewire-outbound-" });
    await Deno.writeTextFile(`${dir}/ca.pem`, tls.ca);
    const securePosts: string[] = [];
    const secure = Deno.serve(
      {
        hostname: "127.0.0.1",
        port: 0,
        cert: tls.cert,
        key: tls.key,
        onListen: () => {},
      },
      async (request) => {
        securePosts.push(await request.text());
        return new Response(null, { status: 204 });
      },
    );
    const run = async (
      queueUrl: string,
      env: Record<string, string>,
      bodies: string[],
    ) => {
      await fauxqs.send(queueUrl, bodies);
      const https = env.HTTP_ENDPOINT !== undefined;
      const posted = (https ? securePosts.length : sink.requests.length) +
        bodies.length;
      const main = startMain(["forwarder"], {
        env: {
          ...fauxqs.env(queueUrl),
          HTTP_ENDPOINT: sink.url,
          AUTH_BEARER_TOKEN: "Bearer t0ken",
          QUEUE_WAIT_TIME_SECONDS: "1",
          ...env,
        },
      });
      try {
        await main.waitFor(/sqs2http start/);
        if (https) {
          const deadline = Date.now() + 20_000;
          while (securePosts.length < posted && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          assert.equal(securePosts.length, posted);
        } else await sink.waitFor(posted, 20_000);
        for (const body of bodies) {
          await main.waitFor(new RegExp(`\\[INFO\\] ${RegExp.escape(body)}$`));
        }
      } finally {
        await main.stop();
        assertNoPassword(main);
      }
    };
    try {
      await t.step("SQS calls and posts go through it", async () => {
        const queueUrl = await fauxqs.createQueue("via-proxy");
        await run(queueUrl, { HTTP_PROXY: proxyUrl }, ["one", "two"]);
        const requests = await tinyproxy.requests();
        assert.ok(
          requests.includes(`POST http://127.0.0.1:${sinkPort}/hook HTTP/1.1`),
          requests.join("\n"),
        );
        assert.ok(
          requests.some((line) =>
            line.startsWith(`POST http://127.0.0.1:${queuePort}/`)
          ),
          requests.join("\n"),
        );
        const counts = await fauxqs.counts(queueUrl);
        assert.equal(counts.visible + counts.inFlight, 0);
      });
      await t.step("NO_PROXY=127.0.0.1 goes around it", async () => {
        const queueUrl = await fauxqs.createQueue("around-proxy");
        const before = (await tinyproxy.requests()).length;
        await run(
          queueUrl,
          { HTTP_PROXY: proxyUrl, NO_PROXY: "127.0.0.1" },
          ["three"],
        );
        assert.equal((await tinyproxy.requests()).length, before);
      });
      await t.step("an https endpoint through the CONNECT tunnel", async () => {
        const queueUrl = await fauxqs.createQueue("tunnelled");
        await run(
          queueUrl,
          {
            HTTP_ENDPOINT: `https://127.0.0.1:${secure.addr.port}/hook`,
            HTTP_PROXY: proxyUrl,
            HTTPS_PROXY: proxyUrl,
            DENO_CERT: `${dir}/ca.pem`,
          },
          ["four", "five"],
        );
        const requests = await tinyproxy.requests();
        assert.ok(
          requests.includes(`CONNECT 127.0.0.1:${secure.addr.port} HTTP/1.1`),
          requests.join("\n"),
        );
        assert.deepEqual(securePosts.sort(), ['"five"', '"four"']);
      });
    } finally {
      await tinyproxy.stop();
      await sink.stop();
      await fauxqs.stop();
      await secure.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
