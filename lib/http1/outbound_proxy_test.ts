import assert from "node:assert/strict";
import {
  type OutboundProxy,
  parseNoProxy,
  parseProxyUrl,
  proxyFor,
} from "./outbound_proxy.ts";

Deno.test("parseProxyUrl() reads proxy URLs as Deno's fetch does", async (t) => {
  await t.step("a plain URL", () => {
    const proxy = parseProxyUrl("http://127.0.0.1:6666");
    assert.equal(proxy.hostname, "127.0.0.1");
    assert.equal(proxy.port, 6666);
    assert.equal(proxy.authorization, undefined);
    assert.equal(proxy.shown, "http://127.0.0.1:6666");
  });
  await t.step("no scheme means http, no port means 80", () => {
    assert.equal(parseProxyUrl("127.0.0.1:6666").port, 6666);
    assert.equal(parseProxyUrl("proxy.corp:3128").hostname, "proxy.corp");
    assert.equal(parseProxyUrl("http://proxy.corp/any/path").port, 80);
  });
  await t.step(
    "credentials go as Basic, percent-decoded, and are masked",
    () => {
      const proxy = parseProxyUrl("http://us%40er:p%3Ass@[::1]:3128");
      assert.equal(proxy.hostname, "::1");
      assert.equal(proxy.authorization, `Basic ${btoa("us@er:p:ss")}`);
      assert.equal(proxy.shown, "http://***@[::1]:3128");
    },
  );
  await t.step("other schemes and a missing password are refused", () => {
    assert.throws(() => parseProxyUrl("socks5://127.0.0.1:1080"), /socks5:/);
    assert.throws(() => parseProxyUrl("https://127.0.0.1:3128"), /https:/);
    assert.throws(
      () => parseProxyUrl("http://user@127.0.0.1:3128"),
      /password/,
    );
    assert.throws(() => parseProxyUrl("http://"), /proxy URL/);
  });
  await t.step("a refusal never quotes the value", () => {
    assert.throws(
      () => parseProxyUrl("ftp://me:secret@127.0.0.1"),
      (error: Error) => !error.message.includes("secret"),
    );
  });
});

Deno.test("proxyFor() follows NO_PROXY as Deno's fetch does", async (t) => {
  const server = parseProxyUrl("http://127.0.0.1:3128");
  const via = (noProxy: string | undefined, url: string) =>
    proxyFor(
      {
        http: server,
        https: server,
        noProxy: noProxy === undefined ? undefined : parseNoProxy(noProxy),
      },
      new URL(url),
    ) !== undefined;
  await t.step("Deno's own cases (ext/fetch/proxy.rs)", () => {
    const list = ".foo.bar, bar.baz,10.42.1.1/24,::1,10.124.7.8,2001::/17";
    for (
      const host of [
        "deno.com",
        "notfoo.bar",
        "notbar.baz",
        "10.43.1.1",
        "10.124.7.7",
        "[ffff:db8:a0b:12f0::1]",
        "[2005:db8:a0b:12f0::1]",
      ]
    ) assert.equal(via(list, `http://${host}/`), true, host);
    for (
      const host of [
        "hello.foo.bar",
        "bar.baz",
        "foo.bar.baz",
        "foo.bar",
        "10.42.1.100",
        "[::1]",
        "[2001:db8:a0b:12f0::1]",
        "10.124.7.8",
      ]
    ) assert.equal(via(list, `http://${host}/`), false, host);
  });
  await t.step("* matches every host", () => {
    assert.equal(via("*", "http://any.where/"), false);
  });
  await t.step("loopback goes through the proxy unless listed", () => {
    assert.equal(via(undefined, "http://127.0.0.1:8080/"), true);
    assert.equal(via(undefined, "http://localhost:8080/"), true);
    assert.equal(via("127.0.0.1", "http://127.0.0.1:8080/"), false);
    assert.equal(via("127.0.0.1", "http://localhost:8080/"), true);
    assert.equal(via("127.0.0.0/8", "https://127.0.0.2/"), false);
  });
  await t.step("entries are compared as written, without ports", () => {
    assert.equal(via("LOCALHOST", "http://localhost/"), true);
    assert.equal(via("localhost:8080", "http://localhost:8080/"), true);
    assert.equal(via(" localhost ,", "http://localhost:8080/"), false);
  });
  await t.step("each scheme has its own proxy", () => {
    const onlyHttps: OutboundProxy = { https: server };
    assert.equal(
      proxyFor(onlyHttps, new URL("http://example.com/")),
      undefined,
    );
    assert.equal(proxyFor(onlyHttps, new URL("https://example.com/")), server);
  });
});
