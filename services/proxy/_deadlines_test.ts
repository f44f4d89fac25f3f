import assert from "node:assert/strict";
import { withFakeClock } from "../../tests/_test_clock.ts";
import { createDeadlines } from "./_deadlines.ts";

Deno.test("createDeadlines() fires a pending deadline once, after its time-out", async () => {
  await withFakeClock(async (clock) => {
    const deadlines = createDeadlines(30);
    let fired = 0;
    deadlines.start(() => fired++);
    await clock.tickAsync(29);
    assert.equal(fired, 0);
    // Checked every tenth of the time-out: fired within 3 ms after it.
    await clock.tickAsync(4);
    assert.equal(fired, 1);
    await clock.tickAsync(100);
    assert.equal(fired, 1);
  });
});

Deno.test("createDeadlines() never fires a finished deadline", async () => {
  await withFakeClock(async (clock) => {
    const deadlines = createDeadlines(10);
    let fired = false;
    deadlines.start(() => fired = true).done();
    const other = deadlines.start(() => {});
    await clock.tickAsync(40);
    other.done();
    assert.equal(fired, false);
  });
});

Deno.test("createDeadlines() counts again from a restart", async () => {
  await withFakeClock(async (clock) => {
    const deadlines = createDeadlines(40);
    let fired = false;
    const deadline = deadlines.start(() => fired = true);
    for (let i = 0; i < 4; i++) {
      await clock.tickAsync(20);
      deadline.restart();
    }
    assert.equal(fired, false); // 80 ms since the start, 0 since the restart
    await clock.tickAsync(45);
    assert.equal(fired, true);
  });
});

Deno.test("createDeadlines() counts a restart with its own time, and a fired deadline stays done", async () => {
  await withFakeClock(async (clock) => {
    const deadlines = createDeadlines(20);
    let fired = 0;
    const deadline = deadlines.start(() => fired++);
    deadline.restart(120);
    await clock.tickAsync(60);
    assert.equal(fired, 0); // past 20 ms, within 120
    await clock.tickAsync(65);
    assert.equal(fired, 1);
    deadline.restart();
    await clock.tickAsync(60);
    assert.equal(fired, 1);
  });
});

Deno.test("createDeadlines() skips a deadline that another due at the same tick ended", async () => {
  await withFakeClock(async (clock) => {
    const deadlines = createDeadlines(10);
    const fired: string[] = [];
    // The first expiry runs after `second` is assigned.
    deadlines.start(() => {
      fired.push("first");
      second.done();
    });
    const second = deadlines.start(() => fired.push("second"));
    const third = deadlines.start(() => fired.push("third"));
    await clock.tickAsync(20);
    assert.deepEqual(fired, ["first", "third"]);
    third.done();
    assert.equal(clock.countTimers(), 0);
  });
});

Deno.test("createDeadlines() keeps the others pending when one in the middle ends", async () => {
  await withFakeClock(async (clock) => {
    const deadlines = createDeadlines(10);
    const fired: number[] = [];
    const started = [0, 1, 2, 3].map((n) =>
      deadlines.start(() => fired.push(n))
    );
    started[1]!.done();
    started[0]!.restart(30);
    await clock.tickAsync(20);
    assert.deepEqual(fired.toSorted((a, b) => a - b), [2, 3]);
    await clock.tickAsync(30);
    assert.deepEqual(fired.toSorted((a, b) => a - b), [0, 2, 3]);
    assert.equal(clock.countTimers(), 0);
  });
});

Deno.test("createDeadlines() ends each deadline it is told to, whatever the order, then holds no timer", async () => {
  await withFakeClock(async (clock) => {
    const deadlines = createDeadlines(10);
    const fired: string[] = [];
    const [a, b, c] = ["a", "b", "c"].map((name) =>
      deadlines.start(() => fired.push(name))
    );
    a!.done();
    const d = deadlines.start(() => fired.push("d"));
    c!.done();
    b!.done();
    d.done();
    assert.equal(clock.countTimers(), 0);
    await clock.tickAsync(40);
    assert.deepEqual(fired, []);
  });
});

Deno.test("createDeadlines() waits again for a deadline another due at the same tick restarted", async () => {
  await withFakeClock(async (clock) => {
    const deadlines = createDeadlines(10);
    const fired: string[] = [];
    // The first expiry runs after `second` is assigned.
    deadlines.start(() => {
      fired.push("first");
      second.restart();
    });
    const second = deadlines.start(() => fired.push("second"));
    await clock.tickAsync(11);
    assert.deepEqual(fired, ["first"]);
    await clock.tickAsync(11);
    assert.deepEqual(fired, ["first", "second"]);
    assert.equal(clock.countTimers(), 0);
  });
});
