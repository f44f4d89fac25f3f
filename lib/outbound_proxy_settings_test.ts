import assert from "node:assert/strict";
import {
  outboundProxyOf,
  outboundProxySettings,
  outboundProxyText,
} from "./outbound_proxy_settings.ts";
import { type Env, parseSettings, SettingsError } from "./settings.ts";

const proxyOf = (env: Env) =>
  outboundProxyOf(parseSettings(outboundProxySettings, env), env);

Deno.test("outboundProxyOf() takes the variables in Deno's order", async (t) => {
  await t.step("nothing set: no proxy", () => {
    assert.equal(proxyOf({ NO_PROXY: "localhost" }), undefined);
  });
  await t.step("upper case wins; lower case is read when it is unset", () => {
    const proxy = proxyOf({
      HTTP_PROXY: "http://10.0.0.1:1",
      http_proxy: "http://10.0.0.2:2",
      https_proxy: "http://10.0.0.3:3",
      no_proxy: "a.example",
    });
    assert.equal(proxy?.http?.shown, "http://10.0.0.1:1");
    assert.equal(proxy?.https?.shown, "http://10.0.0.3:3");
    assert.deepEqual(proxy?.noProxy?.domains, ["a.example"]);
    assert.deepEqual(
      proxyOf({
        HTTP_PROXY: "10.0.0.1:1",
        NO_PROXY: "b.example",
        no_proxy: "a.example",
      })?.noProxy?.domains,
      ["b.example"],
    );
  });
  await t.step("HTTP_PROXY is ignored under CGI (REQUEST_METHOD set)", () => {
    const proxy = proxyOf({
      HTTP_PROXY: "http://10.0.0.1:1",
      HTTPS_PROXY: "http://10.0.0.3:3",
      REQUEST_METHOD: "GET",
    });
    assert.equal(proxy?.http, undefined);
    assert.equal(proxy?.https?.port, 3);
  });
  await t.step("a bad URL is a settings problem that hides the value", () => {
    assert.throws(
      () => proxyOf({ https_proxy: "socks5://me:secret@10.0.0.1:1080" }),
      (error: unknown) =>
        error instanceof SettingsError &&
        error.problems[0]!.startsWith("Invalid https_proxy: expected") &&
        !error.message.includes("secret"),
    );
  });
});

Deno.test("outboundProxyText() masks the credentials", () => {
  const text = outboundProxyText(
    proxyOf({
      HTTP_PROXY: "http://me:secret@10.0.0.1:3128",
      NO_PROXY: "127.0.0.1,.internal",
    })!,
  );
  assert.equal(
    text,
    "outbound proxy: http:// through http://***@10.0.0.1:3128; directly: 127.0.0.1,.internal",
  );
});
