import assert from "node:assert/strict";
import { maskUnreadable, parseUrlParts } from "./url_parts.ts";

Deno.test("parseUrlParts() reads the parts as Apprise does", () => {
  const parts = parseUrlParts(
    "NTFY://me:p%40ss@Host.lan:81/a/b%2Fc/?Priority=High&tags=a,b&+X-Key=v+1&flag",
  );
  assert.deepEqual(
    parts && { ...parts, query: Object.fromEntries(parts.query) },
    {
      scheme: "ntfy",
      user: "me",
      password: "p@ss",
      host: "Host.lan",
      port: "81",
      path: ["a", "b/c"],
      trailingSlash: true,
      query: { priority: "High", tags: "a,b", "+x-key": "v+1", flag: "" },
    },
  );
  assert.deepEqual(parseUrlParts("pbul://o.AbC")?.host, "o.AbC");
  assert.deepEqual(parseUrlParts("gotify://[::1]:8080/T")?.host, "[::1]");
  assert.equal(parseUrlParts("tgram://123:AbC/42")?.port, "AbC");
});

Deno.test("parseUrlParts() returns undefined for what is not a URL", () => {
  for (const raw of ["", "ntfy:/h", "ntfy://h/a b", "ntfy://h/%zz", "://h"]) {
    assert.equal(parseUrlParts(raw), undefined, raw);
  }
});

Deno.test("maskUnreadable() keeps the scheme and, when asked, a server host", () => {
  assert.equal(
    maskUnreadable("gotify://host.lan/S3cret%zz", true),
    "gotify://host.lan/****",
  );
  assert.equal(
    maskUnreadable("gotify://u:pw@host.lan/x y", true),
    "gotify://****@host.lan/****",
  );
  assert.equal(maskUnreadable("pbul://o.S3cret x", false), "pbul://****");
  assert.equal(maskUnreadable("no url s3cret", true), "****");
});
