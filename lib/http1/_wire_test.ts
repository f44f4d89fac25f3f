import assert from "node:assert/strict";
import { latin1, latin1Into } from "./_wire.ts";

Deno.test("latin1() and latin1Into() write one byte per character", async (t) => {
  await t.step("ASCII", () => {
    assert.deepEqual([...latin1("GET /\r\n")], [71, 69, 84, 32, 47, 13, 10]);
    const target = new Uint8Array(8);
    assert.equal(latin1Into("ab", target), 2);
    assert.deepEqual([...target.subarray(0, 2)], [97, 98]);
  });
  await t.step("Latin-1 beyond ASCII (not UTF-8)", () => {
    assert.deepEqual([...latin1("x: café")], [120, 58, 32, 99, 97, 102, 0xe9]);
    const target = new Uint8Array(8);
    assert.equal(latin1Into("café", target), 4);
    assert.deepEqual([...target.subarray(0, 4)], [99, 97, 102, 0xe9]);
  });
  await t.step("-1 when the text does not fit", () => {
    assert.equal(latin1Into("abc", new Uint8Array(2)), -1);
  });
});
