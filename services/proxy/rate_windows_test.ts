import assert from "node:assert/strict";
import { parseRateLimit } from "./rate_limit.ts";
import { createRateWindows } from "./rate_windows.ts";

Deno.test("createRateWindows() allows the limit per window, then refuses", () => {
  let time = 1_000_000;
  const windows = createRateWindows(parseRateLimit("2/10s"), {
    now: () => time,
  });
  const first = windows.take("a");
  assert.deepEqual(first, {
    allowed: true,
    remaining: 1,
    resetSeconds: 10,
    firstRefusal: false,
  });
  assert.equal(windows.take("a").remaining, 0);
  time += 3_500;
  const refused = windows.take("a");
  assert.deepEqual(refused, {
    allowed: false,
    remaining: 0,
    resetSeconds: 7,
    firstRefusal: true,
  });
  assert.equal(windows.take("a").firstRefusal, false, "one refusal logged");
  assert.equal(windows.take("b").allowed, true, "keys counted apart");
  assert.equal(windows.peek("a").allowed, false);
  assert.equal(windows.peek("c").remaining, 2, "peek counts nothing");
  time += 6_500;
  const next = windows.take("a");
  assert.equal(next.allowed, true, "a new window");
  assert.equal(next.resetSeconds, 10);
  time += 10_000;
  windows.take("a");
  windows.take("a");
  assert.equal(
    windows.take("a").firstRefusal,
    true,
    "logged again next window",
  );
});

Deno.test("createRateWindows() keeps at most maxKeys windows, oldest out first", () => {
  let time = 0;
  const windows = createRateWindows(parseRateLimit("1/1h"), {
    maxKeys: 3,
    now: () => time++,
  });
  for (const key of ["a", "b", "c"]) windows.take(key);
  assert.equal(windows.take("a").allowed, false);
  windows.take("d");
  assert.equal(windows.size, 3);
  // "a" was the oldest window: dropped, so it starts again.
  assert.equal(windows.take("a").allowed, true);
  assert.equal(windows.size, 3);
  assert.equal(windows.take("c").allowed, false, "c kept");
  for (let i = 0; i < 10_000; i++) windows.take(`k${i}`);
  assert.equal(windows.size, 3);
});
