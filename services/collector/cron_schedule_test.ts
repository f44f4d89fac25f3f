import assert from "node:assert/strict";
import { readSettings } from "../../lib/settings.ts";
import { cronProblem, cronSchedule } from "./cron_schedule.ts";

const schedule = cronSchedule({ description: "Schedule" });

/** Whether the setting accepts `expression`, the check start-up makes. */
function accepts(expression: string): boolean {
  try {
    schedule.read(expression);
    return true;
  } catch {
    return false;
  }
}

/** Values `Deno.cron` (Deno 2) accepts, found by trying them. */
const ACCEPTED = [
  "*/5 * * * *",
  "0 * * * *",
  "0,30 8-18 * * 1-5",
  "59 23 31 12 7",
  "0 0 * * MON",
  "* * * JAN *",
  "* * * * mon-fri/2",
  "* * * jan-DEC/3 *",
  "* * * * FRI-MON",
  "5-1 * * * *",
  "*/59 */23 */30 */11 */6",
  "0/59 * * * *",
  "1-5/59 * * * *",
  "01 00 01 * 07",
  "*,5 * * * *",
  "* * L * *",
  "* * LW * *",
  "* * L-30 * *",
  "* * 15W * *",
  "* * * * L",
  "* * * * SATL",
  "* * * * 5#3",
  "* * * * MON#5",
];

/** Values `Deno.cron` (Deno 2) refuses with "Invalid cron schedule". */
const REFUSED = [
  "99 * * * *",
  "*/0 * * * *",
  "0 25 * * *",
  "* * * * 8",
  "* * * * 0",
  "* * 0 * *",
  "* * 32 * *",
  "* * * 13 *",
  "60 * * * *",
  "0-60 * * * *",
  "*/60 * * * *",
  "* */24 * * *",
  "* * */31 * *",
  "* * * */12 *",
  "* * * * */7",
  "1-5/0 * * * *",
  "1,,2 * * * *",
  "* * * * MONDAY",
  "* * * JANUARY *",
  "? * * * *",
  "@daily",
  "0 0 0 * * *",
  "-1 * * * *",
  "*/ * * * *",
  "*-5 * * * *",
  "*/5/2 * * * *",
  "1-2-3 * * * *",
  "007 * * * *",
  "L * * * *",
  "* * L-31 * *",
  "* * 1,L * *",
  "* * 32W * *",
  "* * * * 5#6",
  "* * * * 5l",
];

Deno.test("cronSchedule() accepts what Deno.cron accepts", async (t) => {
  await t.step("on the recorded values", () => {
    for (const ok of [...ACCEPTED, " 1 2 3 4 5 ", "0  *  * * *"]) {
      assert.equal(accepts(ok), true, ok);
    }
    for (const bad of [...REFUSED, "every 5 minutes", "", "*/5 * * *"]) {
      assert.equal(accepts(bad), false, bad);
    }
  });
  await t.step({
    name: "on the running Deno (with --unstable-cron)",
    ignore: typeof Deno.cron !== "function",
    fn() {
      for (const [index, expression] of [...ACCEPTED, ...REFUSED].entries()) {
        const stop = new AbortController();
        let accepted = true;
        try {
          Deno.cron(
            `check ${index}`,
            expression,
            { signal: stop.signal },
            () => {},
          );
        } catch {
          accepted = false;
        } finally {
          stop.abort();
        }
        assert.equal(accepts(expression), accepted, expression);
      }
    },
  });
});

/**
 * Values `Deno.cron` (Deno 2) accepts and then panics on, a while later, taking the
 * process down: no date ever matches.
 */
const NEVER_RUN = [
  "0 0 31 4 *",
  "0 0 30 2 *",
  "0 0 30-31 2 *",
  "0 0 31 2,4,6,9,11 *",
  "0 0 31 4/5 *",
  "0 0 31 4-4 *",
  "0 0 31W 4 *",
  "0 0 30W 2 *",
  "0 0 L-29 2 *",
];

/** Their neighbours, which run (tried on `Deno.cron` as well). */
const RUN = [
  "0 0 29 2 *",
  "0 0 31 4,5 *",
  "0 0 31 NOV-FEB *",
  "0 0 31 */2 *",
  "0 0 L-28 2 *",
  "0 0 29W 2 *",
  "0 0 31 4 1",
  "0 0 30 2 MON",
  "0 0 31 2 L",
  "0 0 31 4 */1",
];

Deno.test("cronSchedule() refuses a day of month that no month of the expression has", () => {
  for (const never of NEVER_RUN) assert.equal(accepts(never), false, never);
  for (const runs of RUN) assert.equal(accepts(runs), true, runs);
  assert.equal(
    cronProblem("0 0 31 4 *"),
    'day-of-month field "31" names no day of the month field "4": the schedule would never run',
  );
});

Deno.test("cronProblem() names the field and what is wrong with it", () => {
  assert.equal(
    cronProblem("99 * * * *"),
    'minute field "99": 99 is outside 0-59',
  );
  assert.equal(
    cronProblem("*/0 * * * *"),
    'minute field "*/0": step "0" is outside 1-59',
  );
  assert.equal(
    cronProblem("0 25 * * *"),
    'hour field "25": 25 is outside 0-23',
  );
  assert.equal(
    cronProblem("* * * * 0"),
    'day-of-week field "0": 0 is outside 1-7',
  );
  assert.equal(
    cronProblem("* * * * MONDAY"),
    'day-of-week field "MONDAY": "MONDAY" is not a number or a name',
  );
  assert.equal(cronProblem("0 0 * * MON"), undefined);
});

Deno.test("cronSchedule() reads the default, a valid value, and rejects others", () => {
  const setting = cronSchedule({ description: "d", default: "*/5 * * * *" });
  assert.equal(setting.read(undefined), "*/5 * * * *");
  assert.equal(setting.read("0  *  * * *"), "0 * * * *");
  assert.equal(setting.read("0 0 * * MON"), "0 0 * * MON");
  assert.throws(
    () => setting.read("soon"),
    /^Error: expected a five-field cron expression such as "\*\/5 \* \* \* \*"$/,
  );
  assert.throws(
    () => setting.read("99 * * * *"),
    /^Error: expected a five-field cron expression such as "\*\/5 \* \* \* \*": minute field "99": 99 is outside 0-59$/,
  );
});

Deno.test("cronSchedule() keeps the options of a setting", async (t) => {
  await t.step("required without a default, reported as missing", () => {
    assert.equal(schedule.required, true);
    assert.equal(schedule.defaultText, undefined);
    const { problems } = readSettings({ SCHEDULE: schedule }, {});
    assert.deepEqual(problems, ["Missing SCHEDULE: Schedule"]);
  });
  await t.step("optional with a default, shown in --help", () => {
    const setting = cronSchedule({ description: "d", default: "0 * * * *" });
    assert.equal(setting.required, false);
    assert.equal(setting.defaultText, "0 * * * *");
  });
  await t.step("secret and requirement are passed on", () => {
    const setting = cronSchedule({
      description: "d",
      secret: true,
      requirement: "required unless X is set",
    });
    assert.equal(setting.secret, true);
    assert.equal(setting.requirement, "required unless X is set");
    const { problems } = readSettings({ SCHEDULE: setting }, {
      SCHEDULE: "soon",
    });
    assert.deepEqual(problems, [
      'Invalid SCHEDULE: expected a five-field cron expression such as "*/5 * * * *"',
    ]);
  });
});
