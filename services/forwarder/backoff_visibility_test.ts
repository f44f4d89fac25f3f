import assert from "node:assert/strict";
import {
  createBackoffVisibility,
  MAX_VISIBILITY_MS,
  parseRetryAfter,
} from "./backoff_visibility.ts";

Deno.test("parseRetryAfter()", async (t) => {
  const now = Date.parse("2015-10-21T07:27:00Z");

  await t.step("reads seconds", () => {
    assert.equal(parseRetryAfter("3", now), 3000);
    assert.equal(parseRetryAfter(" 120 ", now), 120_000);
    assert.equal(parseRetryAfter("0", now), 0);
  });

  await t.step("reads an HTTP date, a past one as 0", () => {
    assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now), 60_000);
    assert.equal(
      parseRetryAfter("Wednesday, 21-Oct-15 07:28:00 GMT", now),
      60_000,
    );
    assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now), 0);
    assert.equal(parseRetryAfter("Wed Oct 21 07:28:00 2015", now), 60_000);
    assert.equal(parseRetryAfter("Wed Oct  1 07:27:00 2015", now), 0);
  });

  await t.step("returns undefined for anything else", () => {
    for (
      const bad of [
        "",
        "-1",
        "1.5",
        "soon",
        "2015-10-21T07:28:00Z",
        "3 s",
        // Date.parse reads these as dates; an HTTP date they are not.
        "abc, 2030",
        "Tue, 5",
        "Mon, 1 2 3",
        "Wed, 21 Oct 2099 07:28:00",
        "Wed, 21 Oct 2099 07:28:00 CET",
        "wed, 21 oct 2099 07:28:00 gmt",
        "Wed, 31 Feb 2099 07:28:00 GMT",
        "Wed, 21 Oct 2099 24:28:00 GMT",
        "Wed, 21 Foo 2099 07:28:00 GMT",
      ]
    ) {
      assert.equal(parseRetryAfter(bad, now), undefined, bad);
    }
  });
});

Deno.test("createBackoffVisibility()", async (t) => {
  await t.step("doubles from the base with each receive, capped", () => {
    const delayOf = createBackoffVisibility({
      baseMs: 1000,
      maxMs: 10_000,
      random: () => 0.5,
    });
    const seconds = [1, 2, 3, 4, 5, 6, 50].map((receiveCount) =>
      delayOf({ receiveCount })?.seconds
    );
    assert.deepEqual(seconds, [1, 2, 4, 8, 10, 10, 10]);
    assert.deepEqual(delayOf({}), { seconds: 1, fromRetryAfter: false });
  });

  await t.step("jitters by 10% either way, never past the cap", () => {
    const at = (random: number, maxMs = 3_600_000) =>
      createBackoffVisibility({ baseMs: 100_000, maxMs, random: () => random })(
        { receiveCount: 1 },
      )?.seconds;
    assert.equal(at(0), 90);
    assert.equal(at(0.999999), 110);
    assert.equal(at(0.999999, 100_000), 100);
  });

  await t.step("follows Retry-After, capped, without jitter or base", () => {
    const delayOf = createBackoffVisibility({
      maxMs: 60_000,
      random: () => 0,
      now: () => Date.parse("2015-10-21T07:27:00Z"),
    });
    assert.deepEqual(delayOf({ receiveCount: 5, retryAfter: "3" }), {
      seconds: 3,
      fromRetryAfter: true,
    });
    assert.equal(delayOf({ retryAfter: "7200" })?.seconds, 60);
    assert.equal(
      delayOf({ retryAfter: "Wed, 21 Oct 2015 07:27:30 GMT" })?.seconds,
      30,
    );
    assert.equal(delayOf({ receiveCount: 2 }), undefined, "no base");
    assert.equal(delayOf({ retryAfter: "later" }), undefined);
  });

  await t.step("a Retry-After wins over the base", () => {
    const delayOf = createBackoffVisibility({
      baseMs: 60_000,
      random: () => 0,
    });
    assert.equal(delayOf({ receiveCount: 1, retryAfter: "2" })?.seconds, 2);
    assert.equal(delayOf({ receiveCount: 1, retryAfter: "x" })?.seconds, 54);
  });

  await t.step("never brings a message back at once", () => {
    const now = Date.parse("2015-10-21T07:27:00Z");
    const delayOf = createBackoffVisibility({
      baseMs: 100,
      random: () => 0,
      now: () => now,
    });
    assert.deepEqual(delayOf({ retryAfter: "0" }), {
      seconds: 1,
      fromRetryAfter: true,
    });
    assert.equal(
      delayOf({ retryAfter: "Wed, 21 Oct 2015 07:00:00 GMT" })?.seconds,
      1,
      "a date in the past",
    );
    assert.equal(delayOf({ receiveCount: 1 })?.seconds, 1, "a base under 1 s");
    const capped = createBackoffVisibility({ baseMs: 1000, maxMs: 1 });
    assert.equal(capped({ receiveCount: 3 })?.seconds, 1, "a cap under 1 s");
  });

  await t.step("never asks SQS for more than 12 hours", () => {
    const delayOf = createBackoffVisibility({
      baseMs: 1000,
      maxMs: MAX_VISIBILITY_MS * 2,
      random: () => 0.999999,
    });
    assert.equal(delayOf({ receiveCount: 99 })?.seconds, 43_200);
  });
});
