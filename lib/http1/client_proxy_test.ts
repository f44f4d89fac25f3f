import assert from "node:assert/strict";
import { makeTestTls } from "../../tests/_test_tls.ts";
import { startRawServer, startScriptedServer } from "./_test_helpers.ts";
import { startConnectProxy } from "./_test_connect_proxy.ts";
import { createHttp1Client } from "./client.ts";
import { ProxyRefusedError, SocketError } from "./errors.ts";
import { exchangeOver } from "./exchange.ts";
import { parseNoProxy, parseProxyUrl } from "./outbound_proxy.ts";
import { createUpstream } from "./upstream.ts";

const OK = "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

Deno.test("createHttp1Client() sends http: requests to the proxy in absolute form", async () => {
  // The "proxy" here is a raw server: it sees what the client sends it.
  const proxy = startRawServer(() => OK);
  const port = new URL(proxy.url).port;
  const client = createHttp1Client({
    proxy: { http: parseProxyUrl(`http://me:s%3Acret@127.0.0.1:${port}`) },
  });
  try {
    const exchange = exchangeOver(client.request);
    const response = await exchange("http://upstream.example:8080/a?b=1", {
      headers: [["proxy-authorization", "Basic from-the-client"]],
    });
    assert.equal(text(response.body), "ok");
    await exchange("http://other.example/c");
    const [first, second] = proxy.heads;
    assert.match(
      first!,
      /^GET http:\/\/upstream\.example:8080\/a\?b=1 HTTP\/1\.1\r\n/,
    );
    assert.match(first!, /\r\nhost: upstream\.example:8080\r\n/);
    assert.match(
      first!,
      new RegExp(`proxy-authorization: Basic ${btoa("me:s:cret")}`),
    );
    assert.doesNotMatch(first!, /from-the-client/);
    assert.match(second!, /^GET http:\/\/other\.example\/c HTTP\/1\.1\r\n/);
  } finally {
    client.close();
    await proxy.stop();
  }
});

Deno.test("createHttp1Client() fails a forwarded request the proxy returns 407", async () => {
  const proxy = startRawServer(() =>
    "HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n"
  );
  const port = new URL(proxy.url).port;
  const client = createHttp1Client({
    proxy: { http: parseProxyUrl(`http://me:secret@127.0.0.1:${port}`) },
  });
  try {
    await assert.rejects(
      client.request("http://upstream.example/"),
      (error: unknown) =>
        error instanceof ProxyRefusedError && error.status === 407 &&
        error.message ===
          `Proxy "http://***@127.0.0.1:${port}" refused the request to upstream.example:80: 407 Proxy Authentication Required`,
    );
  } finally {
    client.close();
    await proxy.stop();
  }
});

Deno.test("createHttp1Client() reaches https: origins through a CONNECT tunnel", async (t) => {
  const tls = await makeTestTls();
  const origin = startScriptedServer(() => ({ steps: [OK] }), { tls });
  const originPort = new URL(origin.url).port;
  const proxy = startConnectProxy({ credentials: "me:secret" });
  const proxyPort = new URL(proxy.url).port;
  const client = createHttp1Client({
    proxy: {
      https: parseProxyUrl(`http://me:secret@127.0.0.1:${proxyPort}`),
    },
    caCerts: [tls.ca],
  });
  try {
    await t.step(
      "TLS to the origin, the tunnel kept for the next request",
      async () => {
        const exchange = exchangeOver(createUpstream({ http1: client }));
        assert.equal(text((await exchange(`${origin.url}/a`)).body), "ok");
        assert.equal(text((await exchange(`${origin.url}/b`)).body), "ok");
        assert.equal(proxy.heads.length, 1);
        assert.match(
          proxy.heads[0]!,
          new RegExp(`^CONNECT 127\\.0\\.0\\.1:${originPort} HTTP/1\\.1\r\n`),
        );
        assert.match(
          proxy.heads[0]!,
          new RegExp(`proxy-authorization: Basic ${btoa("me:secret")}`),
        );
        // The origin sees an origin-form request, and nothing of the proxy's credentials.
        assert.match(origin.heads[0]!, /^GET \/a HTTP\/1\.1\r\n/);
        assert.doesNotMatch(origin.heads[0]!, /proxy-authorization/i);
      },
    );
    await t.step("serves() takes https: only through the proxy", () => {
      assert.equal(client.serves(new URL(origin.url)), true);
      const direct = createHttp1Client();
      assert.equal(direct.serves(new URL(origin.url)), false);
      assert.equal(direct.serves(new URL("http://127.0.0.1/")), true);
    });
  } finally {
    client.close();
    await proxy.stop();
    await origin.stop();
  }
});

Deno.test("createHttp1Client() names the proxy, masked, when it refuses the tunnel", async (t) => {
  for (const status of [407, 403, 502]) {
    await t.step(`${status}`, async () => {
      const proxy = startConnectProxy(
        status === 407 ? { credentials: "me:right" } : { refuse: status },
      );
      const port = new URL(proxy.url).port;
      const client = createHttp1Client({
        proxy: { https: parseProxyUrl(`http://me:wrong@127.0.0.1:${port}`) },
      });
      try {
        await assert.rejects(
          client.request("https://upstream.example/"),
          (error: unknown) =>
            error instanceof ProxyRefusedError &&
            error.code === "HTTP1_PROXY_REFUSED" && error.status === status &&
            error.message.startsWith(
              `Proxy "http://***@127.0.0.1:${port}" refused the request to upstream.example:443: ${status}`,
            ) && !error.message.includes("wrong"),
        );
      } finally {
        client.close();
        await proxy.stop();
      }
    });
  }
});

Deno.test("createHttp1Client() names the proxy when it cannot be reached", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const client = createHttp1Client({
    proxy: { http: parseProxyUrl(`me:secret@127.0.0.1:${port}`) },
  });
  await assert.rejects(
    client.request("http://upstream.example/"),
    (error: unknown) =>
      error instanceof SocketError &&
      error.message.startsWith(`Proxy "http://***@127.0.0.1:${port}": `),
  );
  client.close();
});

Deno.test("createHttp1Client() goes directly to the hosts of NO_PROXY", async () => {
  const upstream = startRawServer(() => OK);
  const client = createHttp1Client({
    // A proxy that would refuse every connection.
    proxy: {
      http: parseProxyUrl("http://127.0.0.1:1"),
      noProxy: parseNoProxy("127.0.0.1"),
    },
  });
  try {
    const response = await exchangeOver(client.request)(`${upstream.url}/x`);
    assert.equal(text(response.body), "ok");
    assert.match(upstream.heads[0]!, /^GET \/x HTTP\/1\.1\r\n/);
  } finally {
    client.close();
    await upstream.stop();
  }
});
