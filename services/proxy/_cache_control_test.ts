import assert from "node:assert/strict";
import { ageSeconds, freshness } from "./_cache_control.ts";

Deno.test("freshness() keeps for the limit unless Cache-Control shortens or forbids it", () => {
  const cases: [string | null, number, number, boolean][] = [
    [null, 0, 60_000, false],
    ["public", 0, 60_000, true],
    ["max-age=10", 0, 10_000, false],
    ["max-age=3600", 0, 60_000, false],
    ["max-age=10", 4, 6_000, false],
    ["max-age=10", 30, 0, false],
    ["max-age=0", 0, 0, false],
    ['max-age="20"', 0, 20_000, false],
    ["max-age=ten", 0, 0, false],
    ["max-age=100, s-maxage=5", 0, 5_000, true],
    ["no-store", 0, 0, false],
    ["public, max-age=60, private", 0, 0, false],
    ["No-Cache", 0, 0, false],
    ['no-cache="set-cookie", max-age=60', 0, 0, false],
    ['community="a,no-store", max-age=30', 0, 30_000, false],
  ];
  for (const [header, age, keepMs, shared] of cases) {
    assert.deepEqual(
      freshness(header, age, 60_000),
      { keepMs, shared },
      `${header} (age ${age})`,
    );
  }
});

Deno.test("ageSeconds() reads whole seconds; absent is 0, malformed undefined", () => {
  assert.equal(ageSeconds(null), 0);
  assert.equal(ageSeconds(" 12 "), 12);
  assert.equal(ageSeconds("-1"), undefined);
  assert.equal(ageSeconds("1.5"), undefined);
});
