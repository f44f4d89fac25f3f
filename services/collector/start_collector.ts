/**
 * Builds a running collector from its settings and dependencies: the steps, the
 * writer, the first pass, the schedule (or the single `--once` pass) and the stop.
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import type { RunningRole } from "../../lib/role.ts";
import { createCollector } from "./collector.ts";
import {
  createIndoorStep,
  type ReadSensors,
  type ThermometerReading,
} from "./indoor_step.ts";
import type { BleSensor } from "../../drivers/ble/ble_sensor.ts";
import { createOutdoorStep } from "./outdoor_step.ts";
import type { PressureSource } from "../../drivers/pressure/pressure_source.ts";
import type { CollectorSettings } from "./settings.ts";
import { createLineSender } from "./line_sender.ts";
import { tsdbTarget } from "./tsdb_target.ts";
import { createTsdbWriter } from "./tsdb_writer.ts";
import { openPointQueue, PointQueueFileError } from "./point_queue.ts";
import type { MqttPublisher } from "./mqtt_publisher.ts";
import { createWeatherClient } from "./weather_client.ts";
import type { MetricsRegistry } from "../../lib/metrics/registry.ts";
import { collectorMetrics } from "./collector_metrics.ts";

/** Registers `handler` on a cron expression until `signal` aborts. */
export type Schedule = (
  expression: string,
  handler: () => Promise<void>,
  signal: AbortSignal,
) => void;

/** What {@linkcode startCollector} needs besides its settings. */
export interface CollectorDependencies {
  /** Logger. */
  log: Log;
  /** The role's metrics, when the process serves them. @default none */
  metrics?: MetricsRegistry;
  /** Run a single pass, flush, and end (`--once`). */
  once: boolean;
  /** Creates the pressure sensor (`undefined` for none); may throw. */
  createPressureSource(): PressureSource | undefined;
  /** Reads the BLE thermometer at `address`. */
  readTemperature(
    address: string,
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<ThermometerReading | undefined>;
  /** Scans once for the `BLE_SENSORS` thermometers. */
  readSensors?(
    sensors: readonly BleSensor[],
    options: Parameters<ReadSensors>[0],
  ): ReturnType<ReadSensors>;
  /**
   * Makes the MQTT publisher when `MQTT_URL` is set (after the buffer opened).
   * @default none: no MQTT
   */
  createMqttPublisher?(
    options: { url: string; discoveryPrefix: string; log: Log },
  ): MqttPublisher;
  /** @default Deno.cron */
  schedule?: Schedule;
  /** Bound of the final flush on stop. @default 10000 */
  finalFlushMs?: number;
  /** Backoff between write retries. @default { baseMs: 1000, maxMs: 60000 } */
  backoff?: { baseMs: number; maxMs: number };
  /** Extra time a hung sensor read gets before it is abandoned. @default 5000 */
  graceMs?: number;
}

const denoCron: Schedule = (expression, handler, signal) => {
  Deno.cron("homewire collector", expression, { signal }, handler);
};

/** Opens the queue of `TSDB_BUFFER_PATH`, naming the setting when it cannot. */
function openBuffer(path: string) {
  try {
    return openPointQueue(path);
  } catch (error) {
    if (!(error instanceof PointQueueFileError)) throw error;
    throw new Error(`TSDB_BUFFER_PATH: ${error.message}`, { cause: error });
  }
}

/**
 * Starts the collector: one pass now, then one per schedule tick (points waiting in
 * `TSDB_BUFFER_PATH` from an earlier run are written first); with `once`, one
 * pass whose `done` resolves after the final flush with 0 when every point was
 * written, and 1 when some were refused by the store, dropped from the full buffer or
 * still unwritten when the flush gave up.
 */
export function startCollector(
  settings: CollectorSettings,
  deps: CollectorDependencies,
): RunningRole {
  const { log } = deps;
  const target = tsdbTarget({
    host: settings.TSDB_HOST,
    port: settings.TSDB_PORT,
    api: settings.TSDB_API,
    database: settings.TSDB_DATABASE,
    org: settings.TSDB_ORG,
    bucket: settings.TSDB_BUCKET,
    token: settings.TSDB_TOKEN,
    username: settings.TSDB_USERNAME,
    password: settings.TSDB_PASSWORD,
  });
  const bufferPath = settings.TSDB_BUFFER_PATH;
  const writer = createTsdbWriter({
    send: createLineSender(target),
    queue: openBuffer(bufferPath),
    keptIn: bufferPath === ":memory:"
      ? undefined
      : `${bufferPath} for the next start`,
    fileLabel: `TSDB_BUFFER_PATH "${bufferPath}"`,
    label: target.label,
    advice: {
      api: settings.TSDB_API,
      database: settings.TSDB_DATABASE,
      bucket: settings.TSDB_BUCKET ?? settings.TSDB_DATABASE,
      org: settings.TSDB_ORG ?? "",
      username: settings.TSDB_USERNAME,
    },
    bufferLimit: settings.TSDB_BUFFER_LIMIT,
    timeoutMs: settings.TSDB_TIMEOUT_MS,
    backoff: deps.backoff,
    log,
  });

  const metrics = deps.metrics && collectorMetrics(deps.metrics, writer);

  let pressure: PressureSource | undefined | null = null;
  const address = settings.TEMPERATURE_SENSOR;
  const bleSensors = settings.BLE_SENSORS;
  const indoor = createIndoorStep({
    pressure: () =>
      pressure === null ? pressure = deps.createPressureSource() : pressure,
    thermometer: address === undefined
      ? undefined
      : (options) => deps.readTemperature(address, options),
    // With BLE_SENSORS set, TEMPERATURE_SENSOR is not needed.
    missing: bleSensors
      ? undefined
      : "TEMPERATURE_SENSOR is not set: set the BLE address of the thermometer",
    sensors: bleSensors && deps.readSensors
      ? {
        names: bleSensors.map((sensor) => sensor.name),
        read: (options) => deps.readSensors!(bleSensors, options),
      }
      : undefined,
    timeoutMs: settings.TEMPERATURE_TIMEOUT_MS,
    graceMs: deps.graceMs,
    altitudeM: settings.PRESSURE_ALTITUDE_M,
    log,
  });
  const apiKey = settings.WEATHER_API_KEY;
  const outdoor = createOutdoorStep({
    weather: apiKey === undefined ? undefined : createWeatherClient({
      baseUrl: settings.WEATHER_BASE_URL,
      apiKey,
      cityId: String(settings.WEATHER_CITY_ID),
      lat: settings.WEATHER_LAT,
      lon: settings.WEATHER_LON,
      uviSource: settings.WEATHER_UVI_SOURCE,
      timeoutMs: settings.WEATHER_TIMEOUT_MS,
      maxBytes: settings.WEATHER_MAX_BYTES,
      log,
    }),
    missing: "WEATHER_API_KEY is not set: set the OpenWeatherMap API key",
    uviSource: settings.WEATHER_UVI_SOURCE,
    log,
  });
  const mqttUrl = settings.MQTT_URL;
  const mqtt = mqttUrl === undefined ? undefined : deps.createMqttPublisher?.({
    url: mqttUrl,
    discoveryPrefix: settings.MQTT_DISCOVERY_PREFIX,
    log,
  });
  let produced = 0; // points handed to the writer, for the verdict of `--once`
  const collector = createCollector({
    indoor,
    outdoor,
    write: (lines) => {
      produced += lines.length;
      return writer.write(lines);
    },
    publish: metrics
      ? (samples) => {
        metrics.record(samples);
        mqtt?.publish(samples);
      }
      : mqtt?.publish,
    log,
  });
  /** Ends the writer, then MQTT (`offline`), each bounded. */
  const closeOutputs = async () => {
    await writer.close(finalFlushMs);
    await mqtt?.close(Math.min(finalFlushMs, 2000));
  };

  const stopping = new AbortController();
  const finalFlushMs = deps.finalFlushMs ?? 10_000;
  let current: Promise<unknown> | undefined;
  const pass = async () => {
    if (current) {
      log.warn("Collector pass skipped: the previous pass is still running");
      return;
    }
    const before = produced;
    current = collector.runPass(stopping.signal);
    try {
      await current;
      metrics?.pass(produced - before);
    } finally {
      current = undefined;
    }
  };

  if (deps.once) {
    log.info(`collector: one pass, writing to ${target.label}`);
    // 1 when the pass collected nothing (unless stopped), or a point was refused,
    // dropped from the full buffer, or left unwritten.
    const done = pass().then(async () => {
      // A pass a signal cut short collected nothing because it was stopped.
      const empty = produced === 0 && !stopping.signal.aborted;
      if (empty) log.error("The pass collected no point: nothing to write");
      await closeOutputs();
      return empty || writer.dropped + writer.pending > 0 ? 1 : 0;
    });
    return {
      done,
      async stop() {
        stopping.abort();
        await done;
      },
    };
  }

  log.info(
    `collector started: schedule "${settings.COLLECTOR_SCHEDULE}", writing to ${target.label}`,
  );
  (deps.schedule ?? denoCron)(
    settings.COLLECTOR_SCHEDULE,
    pass,
    stopping.signal,
  );
  const first = pass();
  return {
    ready: metrics?.readiness,
    async stop() {
      stopping.abort();
      await first;
      await current;
      await closeOutputs();
    },
  };
}
