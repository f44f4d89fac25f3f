import assert from "node:assert/strict";
import { parseHeaderNames, requireHeader } from "./require_header.ts";

Deno.test("requireHeader() refuses a request with none of the headers", async () => {
  const check = requireHeader(["origin", "x-requested-with"], {
    "access-control-allow-origin": "*",
  });
  const refused = check(new Request("http://proxy/api/x"));
  assert.equal(refused?.status, 403);
  assert.equal(refused?.headers.get("access-control-allow-origin"), "*");
  assert.match((await refused!.json()).message, /origin, x-requested-with/);
  assert.equal(
    check(
      new Request("http://proxy/api/x", {
        headers: { "X-Requested-With": "x" },
      }),
    ),
    undefined,
  );
});

Deno.test("parseHeaderNames() lower-cases names and refuses others", () => {
  assert.deepEqual(parseHeaderNames("Origin, X-Requested-With,origin,"), [
    "origin",
    "x-requested-with",
  ]);
  assert.throws(() => parseHeaderNames("ok,bad name,x:y"), /"bad name".*"x:y"/);
});
