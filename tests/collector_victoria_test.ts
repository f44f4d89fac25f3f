/**
 * The collector's v2 write path (`/api/v2/write`) against a real VictoriaMetrics,
 * read back through its export API, and what it returns for lines InfluxDB would
 * refuse.
 */
import assert from "node:assert/strict";
import { createMemoryLog } from "../lib/_test_memory_log.ts";
import { parseSettings } from "../lib/settings.ts";
import { startWeatherStandIn } from "../services/collector/_test_weather.ts";
import { collectorSettings } from "../services/collector/settings.ts";
import { startCollector } from "../services/collector/start_collector.ts";
import { createLineSender } from "../services/collector/line_sender.ts";
import { tsdbTarget } from "../services/collector/tsdb_target.ts";
import { createTsdbWriter } from "../services/collector/tsdb_writer.ts";
import { requireBinary } from "./_test_helpers.ts";
import { startVictoria } from "./_test_victoria.ts";

const victoria = requireBinary("victoria-metrics", [
  "/usr/bin/victoria-metrics",
]);

Deno.test({
  name: "collector writes every point through the v2 API into VictoriaMetrics",
  ignore: victoria.ignore,
  async fn() {
    const vm = await startVictoria(victoria.path ?? "victoria-metrics");
    const weather = startWeatherStandIn();
    try {
      const log = createMemoryLog();
      const settings = parseSettings(collectorSettings, {
        TSDB_HOST: "127.0.0.1",
        TSDB_PORT: String(vm.port),
        TSDB_API: "v2",
        TSDB_ORG: "home-org",
        TSDB_BUCKET: "sensors",
        TSDB_TOKEN: "s3cret-token",
        TSDB_BUFFER_PATH: ":memory:",
        WEATHER_API_KEY: "k3y",
        WEATHER_BASE_URL: weather.url,
        WEATHER_UVI_SOURCE: "onecall",
        TEMPERATURE_SENSOR: "AA:BB:CC:DD:EE:FF",
      });
      const before = Date.now();
      const role = startCollector(settings, {
        log,
        once: true,
        createPressureSource: () => ({ read: () => Promise.resolve(1001.5) }),
        readTemperature: () =>
          Promise.resolve({ temperature: 19.5, humidity: 55, battery: 70 }),
      });
      assert.equal(await role.done, 0);
      assert.deepEqual(log.at("ERROR"), []);
      assert.ok(log.entries.every((e) => !e.message.includes("s3cret-token")));

      const series = await vm.exportSeries('{__name__=~"home_.*"}', 24);
      const found = series.flatMap((s) =>
        s.values.map((value, i) => ({
          name: s.metric.__name__!,
          location: s.metric.location!,
          value,
          time: s.timestamps[i]!,
        }))
      );
      const time = found.find((p) => p.name === "home_uvi_value")!.time;
      assert.ok(time >= before && time <= Date.now());
      const key = (p: { name: string; location: string; time: number }) =>
        `${p.name}/${p.location}/${p.time}`;
      const expected = [
        { name: "home_pressure_value", location: "in", value: 1001.5, time },
        { name: "home_temperature_value", location: "in", value: 19.5, time },
        { name: "home_humidity_value", location: "in", value: 55, time },
        { name: "home_pressure_value", location: "out", value: 1016, time },
        { name: "home_humidity_value", location: "out", value: 81, time },
        { name: "home_temperature_value", location: "out", value: 12.5, time },
        { name: "home_rain_value", location: "out", value: 1, time },
        { name: "home_rain_level", location: "out", value: 2, time },
        { name: "home_uvi_value", location: "out", value: 2.75, time },
        ...[
          [1700010800000, 13.1, 78, 1, 1, 1015],
          [1700021600000, 9.25, 90, 0, 0, 1014.5],
          [1700032400000, -1.5, 95, 1, 4, 1012],
        ].flatMap(([at, temp, humidity, rain, level, pressure]) =>
          Object.entries({ temp, humidity, rain, rain_level: level, pressure })
            .map(([field, value]) => ({
              name: `home_weather_forecast_${field}`,
              location: "out",
              value: value!,
              time: at!,
            }))
        ),
      ];
      const sort = (list: typeof expected) =>
        [...list].sort((a, b) => key(a).localeCompare(key(b)));
      assert.deepEqual(sort(found), sort(expected));
      assert.deepEqual(
        weather.requests.map((r) => r.path).sort(),
        ["/data/2.5/forecast", "/data/2.5/weather", "/data/3.0/onecall"],
      );
    } finally {
      await weather.close();
      await vm.stop();
    }
  },
});

Deno.test({
  name:
    "VictoriaMetrics returns 204 to lines InfluxDB would refuse: createTsdbWriter() counts none as refused",
  ignore: victoria.ignore,
  async fn() {
    const vm = await startVictoria(victoria.path ?? "victoria-metrics");
    const log = createMemoryLog();
    const target = tsdbTarget({
      host: `http://127.0.0.1:${vm.port}`,
      api: "v2",
      database: "home",
    });
    const writer = createTsdbWriter({
      send: createLineSender(target),
      label: target.label,
      bufferLimit: 100,
      log,
    });
    try {
      const now = Date.now();
      writer.write([`m,location=in value=1i ${now - 1000}`]);
      assert.equal(await writer.flush(5000), true);
      // A float after an integer, a string field, a line that does not parse: no
      // partial-write reply; VictoriaMetrics has no field types (the string is
      // stored as 0) and skips the bad line without saying so.
      writer.write([
        `m,location=in value=2.5 ${now}`,
        `m,location=out value="text" ${now}`,
        "bad line",
        `ok value=1 ${now}`,
      ]);
      assert.equal(await writer.flush(5000), true);
      assert.equal(writer.dropped, 0);
      assert.deepEqual(log.at("ERROR"), []);
      const series = await vm.exportSeries('{__name__=~"m_value|ok_value"}', 3);
      assert.deepEqual(
        series.map((s) => [s.metric.__name__, s.metric.location, s.values])
          .sort(),
        [
          ["m_value", "in", [1, 2.5]],
          ["m_value", "out", [0]],
          ["ok_value", undefined, [1]],
        ],
      );
    } finally {
      await writer.close(1000);
      await vm.stop();
    }
  },
});
