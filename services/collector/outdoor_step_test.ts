import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { FORECAST_REPLY, startWeatherStandIn } from "./_test_weather.ts";
import { createOutdoorStep } from "./outdoor_step.ts";
import { createWeatherClient } from "./weather_client.ts";

const time = new Date("2026-11-21T20:15:00Z");

function step(url: string, timeoutMs = 2000) {
  const log = createMemoryLog();
  const weather = createWeatherClient({
    baseUrl: url,
    apiKey: "k",
    cityId: "1",
    lat: 1,
    lon: 2,
    uviSource: "uvi",
    timeoutMs,
    log,
  });
  return {
    outdoor: createOutdoorStep({ weather, uviSource: "uvi", log }),
    log,
  };
}

Deno.test("createOutdoorStep() returns every outdoor point", async () => {
  const standIn = startWeatherStandIn();
  try {
    const { outdoor, log } = step(standIn.url);
    const samples = await outdoor(time);
    assert.deepEqual(samples.map((s) => s.measurement), [
      "home_pressure",
      "home_humidity",
      "home_temperature",
      "home_rain",
      "home_uvi",
      "home_weather_forecast",
      "home_weather_forecast",
      "home_weather_forecast",
    ]);
    assert.deepEqual(log.entries, []);
  } finally {
    await standIn.close();
  }
});

Deno.test("createOutdoorStep() skips only the points of a failed call", async (t) => {
  const standIn = startWeatherStandIn();
  try {
    await t.step("not 200: WARNING", async () => {
      const { outdoor, log } = step(standIn.url);
      standIn.replies.set("/data/2.5/uvi", { status: 503, body: "down" });
      const samples = await outdoor(time);
      assert.equal(samples.length, 7);
      assert.ok(!samples.some((s) => s.measurement === "home_uvi"));
      assert.equal(log.at("WARNING").length, 1);
      assert.deepEqual(log.at("ERROR"), []);
      standIn.replies.clear();
    });
    await t.step("malformed JSON, missing fields, slow: ERROR", async () => {
      const { outdoor, log } = step(standIn.url, 300);
      standIn.replies.set("/data/2.5/weather", { body: "<html>" });
      standIn.replies.set("/data/2.5/uvi", { body: { lat: 1 } });
      standIn.replies.set("/data/2.5/forecast", { body: {}, delayMs: 3000 });
      assert.deepEqual(await outdoor(time), []);
      const errors = log.at("ERROR");
      assert.equal(errors.length, 3);
      assert.match(
        errors[0]!,
        /^Outdoor step: weather points skipped: .*not JSON/,
      );
      assert.match(
        errors[1]!,
        /^Outdoor step: UV index points skipped: .*"value"/,
      );
      assert.match(
        errors[2]!,
        /^Outdoor step: forecast points skipped: .*timed out/,
      );
    });
  } finally {
    await standIn.close();
  }
});

Deno.test("createOutdoorStep() skips a malformed forecast entry alone, with an ERROR naming it", async () => {
  const standIn = startWeatherStandIn();
  try {
    const { outdoor, log } = step(standIn.url);
    const [first, second, third] = FORECAST_REPLY.list;
    const { pressure: _, ...main } = second!.main;
    standIn.replies.set("/data/2.5/forecast", {
      body: { ...FORECAST_REPLY, list: [first, { ...second, main }, third] },
    });
    const samples = await outdoor(time);
    assert.deepEqual(
      samples.filter((s) => s.measurement === "home_weather_forecast")
        .map((s) => s.time.getTime() / 1000),
      [first!.dt, third!.dt],
    );
    assert.equal(samples.length, 7);
    assert.deepEqual(log.at("ERROR"), [
      'Outdoor step: forecast entry 1 skipped: no number at "main.pressure"',
    ]);
  } finally {
    await standIn.close();
  }
});

Deno.test("createOutdoorStep() logs a call cut short by a stop at DEBUG, not ERROR", async () => {
  const standIn = startWeatherStandIn();
  try {
    const { outdoor, log } = step(standIn.url, 10_000);
    standIn.replies.set("/data/2.5/forecast", { body: {}, delayMs: 5000 });
    const stopping = new AbortController();
    const pass = outdoor(time, stopping.signal);
    while (standIn.requests.length < 3) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    stopping.abort();
    const samples = await pass;
    assert.ok(!samples.some((s) => s.measurement === "home_weather_forecast"));
    assert.deepEqual(log.at("ERROR"), []);
    assert.ok(
      log.at("DEBUG").some((line) =>
        line.startsWith("Outdoor step: forecast call stopped: ")
      ),
      log.entries.join("\n"),
    );
  } finally {
    await standIn.close();
  }
});

Deno.test("createOutdoorStep() throws the missing-setting reason without a client", async () => {
  const outdoor = createOutdoorStep({
    missing: "WEATHER_API_KEY is not set",
    uviSource: "uvi",
    log: createMemoryLog(),
  });
  await assert.rejects(outdoor(time), /WEATHER_API_KEY is not set/);
});
