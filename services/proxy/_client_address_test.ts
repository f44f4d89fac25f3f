import assert from "node:assert/strict";
import { createClientKey, forwardedFor } from "./_client_address.ts";
import { parseTrustedProxies } from "./trusted_proxies.ts";

const request = (headers: Record<string, string> = {}) =>
  new Request("http://proxy/api/x", { headers });

Deno.test("createClientKey() is the client address without trusted proxies", () => {
  const key = createClientKey();
  assert.equal(
    key(request({ "x-forwarded-for": "1.1.1.1" }), "10.0.0.1"),
    "10.0.0.1",
  );
  assert.equal(key(request(), "::ffff:10.0.0.1"), "10.0.0.1");
  assert.equal(key(request(), "2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
  assert.equal(key(request(), undefined), "unknown");
});

Deno.test("createClientKey() believes X-Forwarded-For from a trusted proxy only", () => {
  const key = createClientKey({
    trusted: parseTrustedProxies("127.0.0.1,10.0.0.0/8"),
  });
  const forwarded = request({
    "x-forwarded-for": "6.6.6.6, 1.2.3.4, 10.0.0.7",
  });
  assert.equal(
    key(forwarded, "127.0.0.1"),
    "1.2.3.4",
    "first untrusted from the right",
  );
  assert.equal(key(forwarded, "192.0.2.1"), "192.0.2.1", "untrusted peer");
  assert.equal(key(request(), "127.0.0.1"), "127.0.0.1", "no header");
  assert.equal(
    key(request({ "x-forwarded-for": "10.0.0.2, 10.0.0.3" }), "127.0.0.1"),
    "10.0.0.2",
    "all trusted: the first",
  );
  assert.equal(
    key(request({ "x-forwarded-for": "1.2.3.4:5678" }), "127.0.0.1"),
    "1.2.3.4",
  );
  assert.equal(
    key(
      request({
        forwarded: 'for=192.0.2.60;proto=http, for="[2001:db8::1]:4711"',
      }),
      "10.1.1.1",
    ),
    "2001:db8:0:0::/64",
  );
  assert.equal(
    key(request({ "x-forwarded-for": "unknown" }), "127.0.0.1"),
    "unknown",
  );
});

Deno.test("createClientKey() counts per Origin when asked to", () => {
  const key = createClientKey({ by: "origin" });
  assert.equal(
    key(request({ origin: "https://a.example" }), "10.0.0.1"),
    "origin https://a.example",
  );
  assert.equal(
    key(request(), "10.0.0.1"),
    "10.0.0.1",
    "address without Origin",
  );
});

Deno.test("forwardedFor() reads Forwarded when X-Forwarded-For is absent", () => {
  const headers = new Headers({ forwarded: 'for=1.2.3.4;by=x, For="[::1]"' });
  assert.deepEqual(forwardedFor(headers), ["1.2.3.4", "::1"]);
});
