/**
 * The collector's MQTT output through `main.ts collector` against a real Mosquitto
 * and a real InfluxDB 1.x: readings on `homewire/<measurement>/<location>`, retained
 * Home Assistant discovery configurations and availability, the last will on
 * SIGKILL, and a stopped broker that does not hold up the store.
 */
import assert from "node:assert/strict";
import mqtt from "mqtt";
import { startWeatherStandIn } from "../services/collector/_test_weather.ts";
import { makeFakeIio, requireBinary, startMain } from "./_test_helpers.ts";
import { startInfluxd } from "./_test_influxd.ts";
import { startMosquitto } from "./_test_mosquitto.ts";

const influxd = requireBinary("influxd", ["/usr/bin/influxd"]);
const mosquitto = requireBinary("mosquitto", ["/usr/sbin/mosquitto"]);

interface Message {
  topic: string;
  payload: string;
  retain: boolean;
  qos: number;
}

/** A test client subscribed to `topics`, recording what it receives. */
async function subscriber(url: string, topics: string[]) {
  const client = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
  const messages: Message[] = [];
  client.on("message", (topic, payload, packet) => {
    messages.push({
      topic,
      payload: payload.toString(),
      retain: packet.retain,
      qos: packet.qos,
    });
  });
  await client.subscribeAsync(topics, { qos: 1 });
  return {
    messages,
    async waitFor(
      match: (message: Message) => boolean,
      what: string,
    ): Promise<Message> {
      const deadline = Date.now() + 20_000;
      while (true) {
        const found = messages.find(match);
        if (found) return found;
        if (Date.now() > deadline) {
          throw new Error(
            `No MQTT message: ${what}; got ${
              JSON.stringify(messages.map((m) => [m.topic, m.payload]))
            }`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    close: () => client.endAsync(true),
  };
}

async function setUp() {
  const broker = await startMosquitto(mosquitto.path ?? "mosquitto");
  const influx = await startInfluxd(influxd.path ?? "influxd");
  await influx.query("CREATE DATABASE home");
  const weather = startWeatherStandIn();
  const iio = await makeFakeIio();
  const dir = await Deno.makeTempDir({ prefix: "homewire-mqtt-" });
  const env = {
    TSDB_HOST: "127.0.0.1",
    TSDB_PORT: String(influx.port),
    TSDB_DATABASE: "home",
    TSDB_BUFFER_PATH: `${dir}/buffer.sqlite3`,
    WEATHER_BASE_URL: weather.url,
    WEATHER_API_KEY: "k3y",
    PRESSURE_SENSOR: "iio",
    PRESSURE_IIO_ROOT: iio,
    PRESSURE_ALTITUDE_M: "650",
    // Mosquitto with allow_anonymous takes any user name and password.
    MQTT_URL: `mqtt://homewire:s3cret-pw@127.0.0.1:${broker.port}`,
  };
  return {
    broker,
    influx,
    env,
    async tearDown() {
      await weather.close();
      await broker.stop();
      await influx.stop();
      await Deno.remove(iio, { recursive: true });
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test({
  name:
    "collector publishes readings, retained discovery configurations and availability to Mosquitto",
  ignore: influxd.ignore || mosquitto.ignore,
  async fn() {
    const t = await setUp();
    const live = await subscriber(t.broker.url, ["homewire/#"]);
    try {
      const main = startMain(["collector"], { env: t.env });
      const reading = await live.waitFor(
        (m) => m.topic === "homewire/home_pressure/in",
        "the indoor pressure",
      );
      assert.equal(reading.qos, 1);
      const body = JSON.parse(reading.payload);
      assert.deepEqual(Object.keys(body), ["time", "value", "sea_level"]);
      assert.equal(body.value, 1013.25);
      assert.ok(
        Math.abs(body.sea_level - 1013.25 / (1 - 650 / 44330) ** 5.255) < 1e-9,
      );
      assert.match(body.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const outdoor = await live.waitFor(
        (m) => m.topic === "homewire/home_temperature/out",
        "the outdoor temperature",
      );
      assert.deepEqual(Object.keys(JSON.parse(outdoor.payload)), [
        "time",
        "value",
      ]);
      await live.waitFor(
        (m) => m.topic === "homewire/status" && m.payload === "online",
        "online",
      );

      // A client arriving later receives the retained configurations and status.
      const later = await subscriber(t.broker.url, [
        "homeassistant/#",
        "homewire/status",
      ]);
      try {
        const config = await later.waitFor(
          (m) =>
            m.topic ===
              "homeassistant/sensor/homewire_in/home_pressure_sea_level/config",
          "the sea-level pressure configuration",
        );
        assert.equal(config.retain, true);
        assert.deepEqual(JSON.parse(config.payload), {
          name: "Sea-level pressure",
          unique_id: "homewire_in_home_pressure_sea_level",
          default_entity_id: "sensor.homewire_in_home_pressure_sea_level",
          state_topic: "homewire/home_pressure/in",
          value_template: "{{ value_json.sea_level }}",
          device_class: "pressure",
          unit_of_measurement: "hPa",
          state_class: "measurement",
          availability_topic: "homewire/status",
          payload_available: "online",
          payload_not_available: "offline",
          device: {
            identifiers: ["homewire_in"],
            name: "homewire indoor",
            manufacturer: "homewire",
            model: "Indoor sensors",
          },
        });
        const temperature = await later.waitFor(
          (m) =>
            m.topic ===
              "homeassistant/sensor/homewire_out/home_temperature_value/config",
          "the outdoor temperature configuration",
        );
        const parsed = JSON.parse(temperature.payload);
        assert.equal(parsed.device_class, "temperature");
        assert.equal(parsed.unit_of_measurement, "°C");
        assert.equal(parsed.state_topic, "homewire/home_temperature/out");
        assert.equal(parsed.value_template, "{{ value_json.value }}");
        assert.equal(parsed.device.name, "homewire outdoor");
        const status = await later.waitFor(
          (m) => m.topic === "homewire/status",
          "the retained status",
        );
        assert.deepEqual([status.payload, status.retain], ["online", true]);
      } finally {
        await later.close();
      }

      // kill -9: the broker publishes the last will.
      await main.stop("SIGKILL");
      await live.waitFor(
        (m) => m.topic === "homewire/status" && m.payload === "offline",
        "offline after SIGKILL",
      );
      const output = [...main.stdout, ...main.stderr].join("\n");
      assert.ok(!output.includes("s3cret-pw"), "the password is never logged");
      assert.match(
        output,
        /MQTT connected to mqtt:\/\/homewire:\*\*\*@127\.0\.0\.1:/,
      );

      // A clean stop says offline too.
      const count = live.messages.length;
      const again = startMain(["collector"], { env: t.env });
      await live.waitFor(
        (m) =>
          live.messages.indexOf(m) >= count && m.topic === "homewire/status" &&
          m.payload === "online",
        "online again",
      );
      assert.equal(await again.stop("SIGTERM"), 0);
      await live.waitFor(
        (m) =>
          live.messages.indexOf(m) >= count && m.topic === "homewire/status" &&
          m.payload === "offline",
        "offline at a clean stop",
      );
    } finally {
      await live.close();
      await t.tearDown();
    }
  },
});

Deno.test({
  name:
    "collector: a stopped or absent broker does not hold up the InfluxDB writes",
  ignore: influxd.ignore || mosquitto.ignore,
  async fn() {
    const t = await setUp();
    try {
      t.broker.kill("SIGSTOP");
      const main = startMain(["collector"], { env: t.env });
      // The pass is written while the broker never responds to its CONNECT: before
      // the MQTT client gives up waiting for it (10 s) and says so.
      await t.influx.waitForRows("home_pressure", "home", 2);
      assert.doesNotMatch(main.stderr.join("\n"), /MQTT broker .* unavailable/);
      await main.waitFor(/\[WARNING\] MQTT broker .* unavailable/, 30_000);
      assert.equal(await main.stop("SIGTERM"), 0);
      // The running role may have made another pass while the warning came.
      const query = `SELECT value FROM home_pressure WHERE location = 'in'`;
      const before = (await t.influx.select(query, "home")).length;

      // --once with the broker stopped: written, exit 0, bounded wait for MQTT.
      const once = startMain(["collector", "--once"], { env: t.env });
      assert.equal(await once.exited(), 0, once.stderr.join("\n"));
      t.broker.kill("SIGCONT");

      // No broker at all: a WARNING without the password, the points written.
      await t.broker.stop();
      const absent = startMain(["collector", "--once"], { env: t.env });
      assert.equal(await absent.exited(), 0, absent.stderr.join("\n"));
      const output = absent.stderr.join("\n");
      assert.match(
        output,
        /\[WARNING\] MQTT broker mqtt:\/\/homewire:\*\*\*@127\.0\.0\.1:\d+ unavailable: .*the store is not affected/,
      );
      assert.ok(!output.includes("s3cret-pw"));
      // Each --once run wrote its point.
      const rows = await t.influx.select(query, "home");
      assert.equal(rows.length, before + 2);
    } finally {
      t.broker.kill("SIGCONT");
      await t.tearDown();
    }
  },
});
