import assert from "node:assert/strict";
import {
  inRange,
  parseAddress,
  parseTrustedProxies,
} from "./trusted_proxies.ts";

const hex = (bytes: Uint8Array | undefined) =>
  bytes && [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

Deno.test("parseAddress() reads IPv4 and IPv6 into 16 bytes", () => {
  assert.equal(
    hex(parseAddress("10.1.2.3")),
    "00000000000000000000ffff0a010203",
  );
  assert.equal(hex(parseAddress("::1")), "00000000000000000000000000000001");
  assert.equal(
    hex(parseAddress("2001:db8::8a2e:370:7334")),
    "20010db80000000000008a2e03707334",
  );
  assert.equal(
    hex(parseAddress("::ffff:10.1.2.3")),
    "00000000000000000000ffff0a010203",
  );
  assert.equal(
    hex(parseAddress("1:2:3:4:5:6:7:8")),
    "00010002000300040005000600070008",
  );
  for (
    const bad of [
      "",
      "1.2.3",
      "256.1.1.1",
      "a.b.c.d",
      "1::2::3",
      "1:2:3:4:5:6:7:8:9",
      "12345::",
      "example.com",
      "[::1]",
    ]
  ) {
    assert.equal(parseAddress(bad), undefined, bad);
  }
});

Deno.test("parseTrustedProxies() reads addresses and CIDR ranges", () => {
  const ranges = parseTrustedProxies("127.0.0.1, 10.0.0.0/8,fd00::/8, ::1");
  assert.equal(ranges.length, 4);
  const within = (address: string) =>
    ranges.some((range) => inRange(parseAddress(address)!, range));
  assert.ok(within("127.0.0.1"));
  assert.ok(!within("127.0.0.2"));
  assert.ok(within("10.255.0.1"));
  assert.ok(!within("11.0.0.1"));
  assert.ok(within("fd12:3456::1"));
  assert.ok(!within("fe80::1"));
  assert.ok(within("::1"));
  assert.ok(within("::ffff:10.0.0.1"), "IPv4 mapped into IPv6");
  assert.equal(parseTrustedProxies("192.168.1.0/23").length, 1);
  assert.equal(parseTrustedProxies("").length, 0);
});

Deno.test("parseTrustedProxies() names every entry that is not one", () => {
  assert.throws(
    () =>
      parseTrustedProxies(
        "10.0.0.0/33,proxy.local,10.0.0.1,::/129,1.2.3.4/8/1",
      ),
    (error: Error) =>
      /"10\.0\.0\.0\/33"/.test(error.message) &&
      /"proxy\.local"/.test(error.message) && /"::\/129"/.test(error.message) &&
      /"1\.2\.3\.4\/8\/1"/.test(error.message) &&
      !error.message.includes('"10.0.0.1"'),
  );
});
