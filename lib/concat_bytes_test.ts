import assert from "node:assert/strict";
import { concatBytes } from "./concat_bytes.ts";

Deno.test("concatBytes() joins chunks in order, empty ones and none too", () => {
  const a = new Uint8Array([1, 2]);
  const b = new Uint8Array([3, 4, 5]).subarray(1);
  assert.deepEqual(
    concatBytes([a, new Uint8Array(0), b]),
    new Uint8Array([1, 2, 4, 5]),
  );
  assert.deepEqual(concatBytes([]), new Uint8Array(0));
  assert.deepEqual(concatBytes([a, b], 4), new Uint8Array([1, 2, 4, 5]));
  const joined = concatBytes([a]);
  joined[0] = 9;
  assert.equal(a[0], 1, "a copy, not a view");
});
