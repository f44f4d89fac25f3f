import assert from "node:assert/strict";
import { createDeadlines } from "./_deadlines.ts";

Deno.test("createDeadlines() fires a pending deadline once, after its time-out", async () => {
  const deadlines = createDeadlines(30);
  const started = Date.now();
  let fired = 0;
  await new Promise<void>((resolve) => {
    deadlines.start(() => {
      fired++;
      resolve();
    });
  });
  assert.ok(Date.now() - started >= 30);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(fired, 1);
});

Deno.test("createDeadlines() never fires a finished deadline", async () => {
  const deadlines = createDeadlines(10);
  let fired = false;
  deadlines.start(() => fired = true).done();
  const other = deadlines.start(() => {});
  await new Promise((resolve) => setTimeout(resolve, 40));
  other.done();
  assert.equal(fired, false);
});

Deno.test("createDeadlines() counts again from a restart", async () => {
  const deadlines = createDeadlines(40);
  let fired = false;
  const deadline = deadlines.start(() => fired = true);
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    deadline.restart();
  }
  assert.equal(fired, false); // 80 ms since the start, 0 since the restart
  deadline.done();
});

Deno.test("createDeadlines() counts a restart with its own time, and a fired deadline stays done", async () => {
  const deadlines = createDeadlines(20);
  let fired = 0;
  const deadline = deadlines.start(() => fired++);
  deadline.restart(120);
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(fired, 0); // past 20 ms, within 120
  await new Promise((resolve) => setTimeout(resolve, 120));
  assert.equal(fired, 1);
  deadline.restart();
  await new Promise((resolve) => setTimeout(resolve, 60));
  assert.equal(fired, 1);
});
