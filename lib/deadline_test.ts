import assert from "node:assert/strict";
import {
  deadline,
  DeadlineError,
  raceSignal,
  withDeadline,
} from "./deadline.ts";

const never = (signal: AbortSignal) =>
  new Promise<never>((_, reject) =>
    signal.addEventListener("abort", () => reject(signal.reason))
  );

Deno.test("withDeadline() rejects with the time-out message alone", async () => {
  await assert.rejects(
    withDeadline(20, undefined, never, "No reply within 20 ms"),
    (error: Error) => {
      assert.ok(error instanceof DeadlineError);
      assert.equal(error.code, "TIMEOUT");
      assert.equal(error.message, "No reply within 20 ms");
      assert.equal(error.cause, undefined);
      return true;
    },
  );
});

Deno.test("withDeadline() keeps another error of the timed-out work as cause", async () => {
  const wrapped = (signal: AbortSignal) =>
    never(signal).catch((reason) => {
      throw new Error("socket closed", { cause: reason });
    });
  await assert.rejects(
    withDeadline(20, undefined, wrapped, "No reply within 20 ms"),
    (error: Error) => {
      assert.equal(error.message, "No reply within 20 ms");
      assert.equal((error.cause as Error).message, "socket closed");
      return true;
    },
  );
});

Deno.test("withDeadline() passes a parent abort through unchanged", async () => {
  const parent = new AbortController();
  const pending = withDeadline(10_000, parent.signal, never, "too slow");
  parent.abort(new Error("shutting down"));
  await assert.rejects(pending, { message: "shutting down" });
});

Deno.test("withDeadline() resolves with the work's value and clears its timer", async () => {
  assert.equal(
    await withDeadline(10_000, undefined, () => Promise.resolve(7), "x"),
    7,
  );
});

Deno.test("raceSignal() rejects when the deadline fires first", async () => {
  const limit = deadline(10);
  await assert.rejects(
    raceSignal(new Promise(() => {}), limit.signal),
    /timed out after 10 ms/,
  );
  assert.equal(limit.expired(), true);
  limit.clear();
});

Deno.test("withDeadline() over raceSignal() bounds work that ignores the signal", async () => {
  await assert.rejects(
    withDeadline(
      20,
      undefined,
      (signal) => raceSignal(new Promise<never>(() => {}), signal),
      "No reply within 20 ms",
    ),
    DeadlineError,
  );
});
