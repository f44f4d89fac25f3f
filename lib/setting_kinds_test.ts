import assert from "node:assert/strict";
import { parseSettings, readSettings } from "./settings.ts";
import {
  decimal,
  durationMs,
  headerSecret,
  host,
  integer,
} from "./setting_kinds.ts";

Deno.test("durationMs() refuses what a timer cannot wait", () => {
  const schema = { T: durationMs({ description: "t" }) };
  assert.equal(parseSettings(schema, { T: "2147483647" }).T, 2147483647);
  assert.equal(parseSettings(schema, { T: "1.5m" }).T, 90_000);
  for (const raw of ["2147483648", "9999999999", "25d", "600h"]) {
    assert.equal(readSettings(schema, { T: raw }).problems.length, 1, raw);
  }
});

Deno.test("host() takes addresses and host names, not URLs", () => {
  const schema = { H: host({ description: "h" }) };
  const accepted = {
    "0.0.0.0": "0.0.0.0",
    "127.0.0.1": "127.0.0.1",
    "::": "::",
    "[::1]": "::1",
    "fe80::1": "fe80::1",
    "localhost": "localhost",
    "pi-4.lan": "pi-4.lan",
  };
  for (const [raw, value] of Object.entries(accepted)) {
    assert.equal(parseSettings(schema, { H: raw }).H, value);
  }
  for (
    const raw of [
      "127.0.0.1:8001",
      "http://127.0.0.1",
      "999.1.1.1",
      "1.2.3",
      "host/path",
      "a b",
      "-bad",
      "[zz::1]",
    ]
  ) {
    assert.deepEqual(readSettings(schema, { H: raw }).problems, [
      `Invalid H "${raw}": expected an IP address or a host name, without scheme, port or path`,
    ]);
  }
});

Deno.test("headerSecret() refuses what a header cannot carry, without showing it", () => {
  const schema = { K: headerSecret({ description: "k" }) };
  assert.equal(parseSettings(schema, { K: "o.Ab-1_+/=~" }).K, "o.Ab-1_+/=~");
  for (const raw of ["pässwörd", "ключ", "two words"]) {
    const { problems } = readSettings(schema, { K: raw });
    assert.equal(problems.length, 1);
    assert.match(problems[0]!, /^Invalid K: expected printable ASCII/);
    assert.ok(!problems[0]!.includes(raw));
  }
});

Deno.test("integer() says a value past the safe integers is too wide, not out of its range", () => {
  const schema = { N: integer({ description: "n", min: 1 }) };
  assert.deepEqual(
    readSettings(schema, { N: "100000000000000000000000" }).problems,
    [
      `Invalid N "100000000000000000000000": expected an integer of at least 1: this one is past ±${Number.MAX_SAFE_INTEGER}, the widest a setting takes`,
    ],
  );
  assert.equal(
    parseSettings(schema, { N: String(Number.MAX_SAFE_INTEGER) }).N,
    Number.MAX_SAFE_INTEGER,
  );
  assert.deepEqual(readSettings(schema, { N: "0" }).problems, [
    'Invalid N "0": expected an integer of at least 1',
  ]);
});

Deno.test("decimal() takes a number's written forms and nothing else", () => {
  const schema = { R: decimal({ description: "r" }) };
  const read = (raw: string) => parseSettings(schema, { R: raw }).R;
  assert.equal(read("1.5e3"), 1500);
  assert.equal(read(".5"), 0.5);
  assert.equal(read("2."), 2);
  assert.equal(read("-0.25"), -0.25);
  for (const raw of ["1..2", ".", "1e", "e5", "1.2.3", "0x10", "1e400"]) {
    assert.equal(readSettings(schema, { R: raw }).problems.length, 1, raw);
  }
});
