import assert from "node:assert/strict";
import { createPrivateHeaders, privateHeaders } from "./private_headers.ts";

Deno.test("createPrivateHeaders() tells private requests, Cookie always, Authorization left to the cache", () => {
  const headers = createPrivateHeaders(["X-Api-Key"]);
  assert.equal(headers.carried(new Headers({ "x-api-key": "K" })), true);
  assert.equal(headers.carried(new Headers({ cookie: "a=1" })), true);
  assert.equal(
    headers.carried(new Headers({ authorization: "Bearer A" })),
    false,
  );
  assert.equal(headers.carried(new Headers({ "x-auth-token": "T" })), false);
  assert.equal(
    headers.carried(new Headers({ "x-api-key": "K" }), new Set(["x-api-key"])),
    false,
  );
  assert.equal(
    createPrivateHeaders().carried(new Headers({ "x-auth-token": "T" })),
    true,
  );
});

Deno.test("createPrivateHeaders() partitions by the values of Authorization, Cookie and the private headers", () => {
  const headers = createPrivateHeaders(["X-Api-Key"]);
  const of = (init: Record<string, string>) =>
    headers.partition(new Headers(init));
  assert.equal(of({}), "");
  assert.equal(of({ accept: "text/plain" }), "");
  const a = of({ authorization: "Bearer A" });
  assert.equal(a, of({ authorization: "Bearer A", accept: "x" }));
  assert.notEqual(a, of({ authorization: "Bearer B" }));
  assert.notEqual(of({ cookie: "s=1" }), of({ cookie: "s=2" }));
  assert.notEqual(of({ "x-api-key": "A" }), of({ authorization: "A" }));
  assert.ok(!a.includes("Bearer"));
});

Deno.test("privateHeaders() reads header names, with a default", () => {
  const setting = privateHeaders({ description: "d" });
  assert.deepEqual(setting.read(undefined), [
    "X-Api-Key",
    "Api-Key",
    "X-Auth-Token",
    "X-Access-Token",
  ]);
  assert.deepEqual(setting.read("X-Key , X-Token"), ["X-Key", "X-Token"]);
  assert.throws(() => setting.read("X Key"));
});
