/**
 * The `collector` role: indoor sensors and outdoor weather into the time-series
 * store, one pass at start and then on a cron schedule (`--once`: a single pass).
 *
 * Layout: a role's folder imports `lib/`, `drivers/` and itself, never another role
 * (`tests/layout_test.ts` checks it).
 *
 * @module
 */
import { collectorMetrics } from "./collector_metrics.ts";
import { defineRole } from "../../lib/role.ts";
import { createPressureSource } from "../../drivers/pressure/mod.ts";
import type { NobleBluetooth } from "../../drivers/ble/noble_scanner.ts";
import { collectorSettings } from "./settings.ts";

/** The `collector` role descriptor. */
export const collectorRole = defineRole({
  name: "collector",
  summary:
    "Writes indoor sensor and outdoor weather points to InfluxDB every 5 minutes (--once: one pass)",
  usage: "collector [--once]",
  flags: ["once"],
  settings: collectorSettings,
  // Loaded on start only: the InfluxDB client is not needed by other roles.
  series: (registry) => {
    collectorMetrics(registry, {
      pending: 0,
      dropped: 0,
      written: 0,
      lastWriteAt: 0,
    });
  },
  async start(settings, { flags, log, metrics }) {
    const { startCollector } = await import("./start_collector.ts");
    // Loaded only when MQTT_URL is set.
    const mqtt = settings.MQTT_URL === undefined
      ? undefined
      : await import("./mqtt_publisher.ts");
    // One Bluetooth stack (one HCI socket) for every pass of this process, made on
    // the first scan: see createNobleBluetooth for why it is never closed.
    let bluetooth: Promise<NobleBluetooth> | undefined;
    const createScanner = async () => {
      bluetooth ??= import("../../drivers/ble/noble_scanner.ts").then((
        { createNobleBluetooth },
      ) => createNobleBluetooth({ log }));
      return await (await bluetooth).scanner();
    };
    return startCollector(settings, {
      log,
      metrics,
      once: flags.has("once"),
      createPressureSource: () => createPressureSource(settings, { log }),
      createMqttPublisher: mqtt?.createMqttPublisher,
      // Loaded on first use: the BLE stack is only needed when a thermometer is set.
      readTemperature: async (address, options) => {
        const { readTemperature } = await import(
          "../../drivers/ble/read_temperature.ts"
        );
        return await readTemperature(address, {
          ...options,
          log,
          createScanner,
        });
      },
      readSensors: async (sensors, options) => {
        const { readSensors } = await import(
          "../../drivers/ble/read_sensors.ts"
        );
        return await readSensors(sensors, { ...options, log, createScanner });
      },
    });
  },
});
