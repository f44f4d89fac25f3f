/**
 * `createMqttPublisher()` against a real Mosquitto that is not there yet: readings
 * wait in memory, the outage is one WARNING without the password, and everything
 * waiting arrives once the broker is up.
 */
import assert from "node:assert/strict";
import mqtt from "mqtt";
import { createMemoryLog } from "../lib/_test_memory_log.ts";
import { createMqttPublisher } from "../services/collector/mqtt_publisher.ts";
import { float } from "../services/collector/sample.ts";
import { requireBinary } from "./_test_helpers.ts";
import { startMosquitto } from "./_test_mosquitto.ts";

const mosquitto = requireBinary("mosquitto", ["/usr/sbin/mosquitto"]);

Deno.test({
  name:
    "createMqttPublisher() keeps readings while the broker is down and publishes them once it is up",
  ignore: mosquitto.ignore,
  async fn() {
    // Started and stopped to learn a port where nothing listens now.
    const first = await startMosquitto(mosquitto.path ?? "mosquitto");
    const port = first.port;
    await first.stop();
    const log = createMemoryLog();
    const publisher = createMqttPublisher({
      url: `mqtt://user:pa%24%24word@127.0.0.1:${port}`,
      discoveryPrefix: "ha",
      reconnectMs: 200,
      log,
    });
    let broker: Awaited<ReturnType<typeof startMosquitto>> | undefined;
    try {
      for (let minute = 0; minute < 3; minute++) {
        publisher.publish([{
          measurement: "home_temperature",
          location: "in",
          sensor: "kitchen",
          time: new Date(Date.UTC(2026, 10, 21, 20, minute)),
          fields: { value: float(20 + minute) },
        }]);
      }
      const deadline = Date.now() + 10_000;
      while (log.at("WARNING").length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(log.at("WARNING").length, 1);
      assert.match(
        log.at("WARNING")[0]!,
        new RegExp(
          `^MQTT broker mqtt://user:\\*\\*\\*@127\\.0\\.0\\.1:${port} unavailable: .*readings wait in memory until it is back \\(the store is not affected\\)$`,
        ),
      );

      broker = await startMosquitto(mosquitto.path ?? "mosquitto", { port });
      const client = await mqtt.connectAsync(broker.url, {
        reconnectPeriod: 0,
      });
      const seen: [string, string][] = [];
      client.on("message", (topic, payload) => {
        seen.push([topic, payload.toString()]);
      });
      await client.subscribeAsync(["homewire/#", "ha/#"], { qos: 1 });
      try {
        const until = Date.now() + 10_000;
        while (
          seen.filter(([t]) => t === "homewire/home_temperature/in/kitchen")
              .length < 3 && Date.now() < until
        ) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.deepEqual(
          seen.filter(([t]) => t === "homewire/home_temperature/in/kitchen")
            .map(([, payload]) => JSON.parse(payload).value),
          [20, 21, 22],
        );
        assert.ok(
          seen.some(([t]) =>
            t === "ha/sensor/homewire_in_kitchen/home_temperature_value/config"
          ),
        );
        assert.ok(
          seen.some(([t, p]) => t === "homewire/status" && p === "online"),
        );
        await publisher.close(2000);
        const closedBy = Date.now() + 5000;
        while (
          !seen.some(([t, p]) => t === "homewire/status" && p === "offline") &&
          Date.now() < closedBy
        ) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.ok(
          seen.some(([t, p]) => t === "homewire/status" && p === "offline"),
        );
      } finally {
        await client.endAsync(true);
      }
      const all = log.entries.map((entry) => JSON.stringify(entry)).join("\n");
      assert.ok(!all.includes("pa$$word") && !all.includes("pa%24%24word"));
      assert.match(
        log.at("INFO").join("\n"),
        /MQTT connected to mqtt:\/\/user:\*\*\*@/,
      );
    } finally {
      await publisher.close(100);
      await broker?.stop();
    }
  },
});
