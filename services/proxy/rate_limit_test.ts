import assert from "node:assert/strict";
import {
  parseRateLimit,
  parseRouteRateLimit,
  rateLimit,
} from "./rate_limit.ts";

Deno.test("parseRateLimit() reads requests per window", () => {
  assert.deepEqual(parseRateLimit("60/1m"), {
    limit: 60,
    windowMs: 60_000,
    text: "60/1m",
  });
  assert.equal(parseRateLimit("5/1s").windowMs, 1_000);
  assert.equal(parseRateLimit(" 100 / 10s ").windowMs, 10_000);
  assert.equal(parseRateLimit("60/m").text, "60/1m");
  assert.equal(parseRateLimit("1000/1d").windowMs, 86_400_000);
  assert.equal(parseRateLimit("3/250ms").windowMs, 250);
});

Deno.test("parseRateLimit() refuses what is not requests/window", () => {
  for (
    const raw of [
      "60",
      "0/1m",
      "60/1",
      "60/1w",
      "-1/1s",
      "a/1s",
      "1/2d",
      "60/0s",
    ]
  ) {
    assert.throws(() => parseRateLimit(raw), /expected requests\/window/, raw);
  }
});

Deno.test("parseRouteRateLimit() reads off as no limit", () => {
  assert.equal(parseRouteRateLimit("off"), null);
  assert.equal(parseRouteRateLimit("OFF"), null);
  assert.equal(parseRouteRateLimit("2/1s")?.limit, 2);
  assert.throws(() => parseRouteRateLimit("never"), /expected off or/);
});

Deno.test("rateLimit() is off when unset or off", () => {
  const setting = rateLimit({ description: "limit" });
  assert.equal(setting.required, false);
  assert.equal(setting.read(undefined), undefined);
  assert.equal(setting.read("off"), undefined);
  assert.equal(setting.read("1/1s")?.limit, 1);
});
