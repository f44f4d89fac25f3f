import assert from "node:assert/strict";
import { cronSchedule, isCronExpression } from "./cron_schedule.ts";

Deno.test("isCronExpression() accepts five-field expressions", () => {
  for (
    const ok of ["*/5 * * * *", "0 * * * *", "0,30 8-18 * * 1-5", " 1 2 3 4 5 "]
  ) {
    assert.equal(isCronExpression(ok), true, ok);
  }
  for (
    const bad of [
      "*/5 * * *",
      "every 5 minutes",
      "",
      "* * * * * *",
      "a * * * *",
    ]
  ) {
    assert.equal(isCronExpression(bad), false, bad);
  }
});

Deno.test("cronSchedule() reads the default, a valid value, and rejects others", () => {
  const setting = cronSchedule({ description: "d", default: "*/5 * * * *" });
  assert.equal(setting.read(undefined), "*/5 * * * *");
  assert.equal(setting.read("0  *  * * *"), "0 * * * *");
  assert.throws(() => setting.read("soon"), /five-field cron expression/);
});
