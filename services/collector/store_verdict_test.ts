import assert from "node:assert/strict";
import {
  type StoreAdvice,
  type StoreVerdict,
  storeVerdict,
} from "./store_verdict.ts";

const v1: StoreAdvice = {
  api: "v1",
  database: "home",
  bucket: "home",
  org: "",
  username: "writer",
};
const v2: StoreAdvice = {
  api: "v2",
  database: "home",
  bucket: "sensors",
  org: "house",
};
const adviceOf = (verdict: StoreVerdict) =>
  verdict.kind === "retry" ? verdict.advice ?? "" : "";
const json = (status: number, error: string) => ({
  status,
  text: JSON.stringify({ error }),
});

Deno.test("storeVerdict() keeps the points when the store refuses the write, saying what to do", () => {
  assert.deepEqual(
    storeVerdict(json(404, 'database not found: "home"'), 9, v1),
    {
      kind: "retry",
      reason: '404 database not found: "home"',
      advice:
        'create the database (CREATE DATABASE "home") or set TSDB_DATABASE to an existing one',
    },
  );
  assert.match(
    adviceOf(storeVerdict({ status: 404, text: "" }, 9, v2)),
    /^create the bucket "sensors" in the organisation "house"/,
  );
  assert.match(
    adviceOf(storeVerdict(json(403, "no"), 1, v1)),
    /GRANT WRITE ON "home" TO "writer"/,
  );
  assert.match(
    adviceOf(storeVerdict({ status: 401, text: "" }, 1, v2)),
    /^set TSDB_TOKEN/,
  );
  assert.equal(storeVerdict(json(409, "x"), 1, v1).kind, "retry");
});

Deno.test("storeVerdict() keeps the points without advice on 408, 429 and 5xx", () => {
  for (const status of [408, 429, 500, 503]) {
    assert.deepEqual(storeVerdict(json(status, "busy"), 3, v1), {
      kind: "retry",
      reason: `${status} busy`,
    });
  }
});

Deno.test("storeVerdict() splits on 413 and on a 400 naming no line, drops a single point", () => {
  assert.deepEqual(storeVerdict(json(413, "too large"), 4, v1), {
    kind: "split",
    reason: "413 too large",
    tooLarge: true,
  });
  assert.deepEqual(storeVerdict(json(413, "too large"), 1, v1), {
    kind: "drop",
    reason: "413 too large",
    refused: 1,
  });
  assert.deepEqual(
    storeVerdict({ status: 400, text: "too long line" }, 4, v1),
    {
      kind: "split",
      reason: "400 too long line",
      tooLarge: false,
    },
  );
  assert.equal(storeVerdict({ status: 400, text: "x" }, 1, v1).kind, "drop");
});

Deno.test("storeVerdict() drops only the lines a 400 or 422 names", () => {
  assert.deepEqual(
    storeVerdict(
      json(400, "unable to parse 'a': x\nunable to parse 'b': y"),
      2,
      v1,
    ),
    {
      kind: "drop",
      reason: "400 unable to parse 'a': x\nunable to parse 'b': y",
      refused: 2,
    },
  );
  assert.deepEqual(
    storeVerdict(json(400, "partial write: conflict dropped=1"), 5, v1),
    {
      kind: "drop",
      reason: "400 partial write: conflict dropped=1",
      refused: 1,
    },
  );
  assert.deepEqual(storeVerdict({ status: 204, text: "" }, 5, v1), {
    kind: "written",
  });
});

Deno.test("storeVerdict() shows at most 300 characters of a reason, and counts a partial write whole", () => {
  const long = "x".repeat(1000);
  const verdict = storeVerdict(
    { status: 503, text: JSON.stringify({ error: long }) },
    5,
    v1,
  );
  assert.deepEqual(verdict, {
    kind: "retry",
    reason: `503 ${"x".repeat(300)}…`,
  });
  // 500 unparsable lines named before the count: all counted, the reason cut.
  const named = Array.from(
    { length: 500 },
    (_, i) => `unable to parse 'bad${i}': invalid field format`,
  ).join("\n");
  const partial = storeVerdict(
    {
      status: 400,
      text: JSON.stringify({
        error: `partial write: ${named} dropped=0`,
      }),
    },
    1000,
    v1,
  );
  assert.equal(partial.kind, "drop");
  assert.equal(partial.kind === "drop" && partial.refused, 500);
  assert.ok(partial.kind === "drop" && [...partial.reason].length <= 305);
});
