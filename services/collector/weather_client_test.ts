import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import {
  CURRENT_REPLY,
  FORECAST_REPLY,
  ONECALL_REPLY,
  startWeatherStandIn,
  UVI_REPLY,
} from "./_test_weather.ts";
import { createWeatherClient, type UviSource } from "./weather_client.ts";

function client(url: string, uviSource: UviSource = "uvi", timeoutMs = 2000) {
  const log = createMemoryLog();
  const weather = createWeatherClient({
    baseUrl: `${url}/`,
    apiKey: "k3y",
    cityId: "3117735",
    lat: 40.4165,
    lon: -3.7026,
    uviSource,
    timeoutMs,
    log,
  });
  return { weather, log };
}

Deno.test("createWeatherClient() calls the documented paths with their query", async () => {
  const standIn = startWeatherStandIn();
  try {
    const { weather } = client(standIn.url);
    assert.deepEqual(await weather.current(), CURRENT_REPLY);
    assert.deepEqual(await weather.uvi(), UVI_REPLY);
    assert.deepEqual(await weather.forecast(), FORECAST_REPLY);
    assert.deepEqual(standIn.requests, [
      {
        path: "/data/2.5/weather",
        query: { id: "3117735", appid: "k3y", units: "metric" },
      },
      {
        path: "/data/2.5/uvi",
        query: { lat: "40.4165", lon: "-3.7026", appid: "k3y" },
      },
      {
        path: "/data/2.5/forecast",
        query: { id: "3117735", appid: "k3y", units: "metric" },
      },
    ]);
  } finally {
    await standIn.close();
  }
});

Deno.test("createWeatherClient() reads the UV index from onecall when asked", async () => {
  const standIn = startWeatherStandIn();
  try {
    const { weather } = client(standIn.url, "onecall");
    assert.deepEqual(await weather.uvi(), ONECALL_REPLY);
    assert.deepEqual(standIn.requests, [{
      path: "/data/3.0/onecall",
      query: {
        lat: "40.4165",
        lon: "-3.7026",
        appid: "k3y",
        exclude: "minutely,hourly,daily,alerts",
      },
    }]);
    // The commas go out literally, as the API documents the query.
    assert.deepEqual(standIn.targets, [
      "/data/3.0/onecall?lat=40.4165&lon=-3.7026&appid=k3y&exclude=minutely,hourly,daily,alerts",
    ]);
  } finally {
    await standIn.close();
  }
});

Deno.test("createWeatherClient() skips a reply that is not 200 with a WARNING", async () => {
  const standIn = startWeatherStandIn();
  try {
    const { weather, log } = client(standIn.url);
    for (const status of [401, 404, 429, 500, 201]) {
      standIn.replies.set("/data/2.5/weather", {
        status,
        body: { cod: status, message: "Invalid API key" },
      });
      assert.equal(await weather.current(), undefined);
    }
    assert.equal(log.at("WARNING").length, 5);
    assert.match(log.at("WARNING")[0]!, /\/data\/2\.5\/weather returned 401/);
    assert.ok(log.entries.every((e) => !e.message.includes("k3y")));
  } finally {
    await standIn.close();
  }
});

Deno.test("createWeatherClient() rejects malformed JSON and slow replies", async () => {
  const standIn = startWeatherStandIn();
  try {
    const { weather } = client(standIn.url, "uvi", 300);
    standIn.replies.set("/data/2.5/weather", { body: "{not json" });
    await assert.rejects(
      weather.current(),
      /returned 200 with a body that is not JSON/,
    );
    standIn.replies.set("/data/2.5/forecast", {
      body: FORECAST_REPLY,
      delayMs: 5000,
    });
    await assert.rejects(weather.forecast(), /timed out after 300 ms/);
  } finally {
    await standIn.close();
  }
});

Deno.test("createWeatherClient() keeps the key out of network errors", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  const { weather } = client(`http://127.0.0.1:${port}`);
  await assert.rejects(weather.current(), (error: Error) => {
    assert.match(error.message, /^Weather call \/data\/2\.5\/weather failed: /);
    assert.ok(!error.message.includes("k3y"), error.message);
    return true;
  });
});

Deno.test("createWeatherClient() percent-encodes query values other than commas", async () => {
  const standIn = startWeatherStandIn();
  try {
    const log = createMemoryLog();
    const weather = createWeatherClient({
      baseUrl: standIn.url,
      apiKey: "a b&c=d/é,",
      cityId: "1",
      lat: 1,
      lon: 2,
      uviSource: "uvi",
      timeoutMs: 2000,
      log,
    });
    await weather.current();
    assert.deepEqual(standIn.targets, [
      "/data/2.5/weather?id=1&appid=a%20b%26c%3Dd%2F%C3%A9,&units=metric",
    ]);
    assert.equal(standIn.requests[0]!.query.appid, "a b&c=d/é,");
  } finally {
    await standIn.close();
  }
});
