import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createCollector } from "./collector.ts";
import { float, type Sample } from "./sample.ts";

const at = new Date("2026-11-21T20:15:00Z");

function point(measurement: string, time: Date, value: number): Sample {
  return { measurement, location: "in", time, fields: { value: float(value) } };
}

Deno.test("createCollector() runs both steps at the pass's start time and writes their points", async () => {
  const log = createMemoryLog();
  const written: string[][] = [];
  const times: Date[] = [];
  const collector = createCollector({
    indoor: (time) => {
      times.push(time);
      return Promise.resolve([point("home_pressure", time, 1013.5)]);
    },
    outdoor: (time) => {
      times.push(time);
      return Promise.resolve([point("home_uvi", time, 2)]);
    },
    write: (lines) => written.push([...lines]),
    log,
    now: () => at,
  });
  const samples = await collector.runPass();
  assert.equal(samples.length, 2);
  assert.deepEqual(times, [at, at]);
  assert.deepEqual(written, [
    [`home_pressure,location=in value=1013.5 ${at.getTime()}`],
    [`home_uvi,location=in value=2 ${at.getTime()}`],
  ]);
  assert.deepEqual(log.at("INFO"), [
    'Write {"time":"2026-11-21T20:15:00.000Z","measurement":"home_pressure","location":"in","fields":{"value":1013.5}}',
    'Write {"time":"2026-11-21T20:15:00.000Z","measurement":"home_uvi","location":"in","fields":{"value":2}}',
  ]);
});

Deno.test("createCollector() logs a failing step at ERROR and still writes the other", async () => {
  const log = createMemoryLog();
  const written: string[] = [];
  const collector = createCollector({
    indoor: () => Promise.reject(new Error("sensor bus is gone")),
    outdoor: (time) =>
      Promise.resolve([
        point("home_temperature", time, 12.5),
        point("home_broken", time, Number.POSITIVE_INFINITY),
      ]),
    write: (lines) => written.push(...lines),
    log,
    now: () => at,
  });
  const samples = await collector.runPass();
  assert.equal(samples.length, 2);
  assert.deepEqual(written, [
    `home_temperature,location=in value=12.5 ${at.getTime()}`,
  ]);
  const errors = log.at("ERROR");
  assert.equal(errors.length, 2);
  assert.ok(
    errors.some((e) => /^Point "home_broken" not written: /.test(e)),
    errors.join("\n"),
  );
  assert.ok(errors.includes("Indoor step failed: sensor bus is gone"));
});
