/**
 * Publishes the collector's readings to an MQTT broker (`npm:mqtt`), with the Home
 * Assistant discovery configurations and the `homewire/status` availability topic.
 * It never blocks or fails the store path: readings published while the broker is
 * unreachable wait in memory (the newest {@linkcode PENDING_LIMIT}) until it is back.
 *
 * @module
 */
import mqtt from "mqtt";
import { errorText, type Log } from "../../lib/log.ts";
import {
  discoveryConfigs,
  readingPayload,
  readingTopic,
  STATUS_TOPIC,
} from "./home_assistant.ts";
import type { Sample } from "./sample.ts";
import { hideUserinfo } from "./settings.ts";

/** Most readings kept in memory while the broker is unreachable (oldest dropped). */
export const PENDING_LIMIT = 1000;

/** What {@linkcode createMqttPublisher} needs. */
export interface MqttPublisherOptions {
  /** `mqtt://[user:pass@]host[:port]` or `mqtts://...`. */
  url: string;
  /** Prefix of the discovery topics. @default "homeassistant" */
  discoveryPrefix?: string;
  /** Logger (the password never reaches it). */
  log: Log;
  /** Wait between reconnection attempts. @default 5000 */
  reconnectMs?: number;
}

/** A running publisher. */
export interface MqttPublisher {
  /** Publishes the readings (QoS 1) and any new discovery configuration; never throws. */
  publish(samples: readonly Sample[]): void;
  /**
   * Publishes what waits and `offline`, and disconnects, within `timeoutMs` (waiting
   * that long for a connection still being made when readings wait).
   */
  close(timeoutMs: number): Promise<void>;
}

/**
 * Connects to the broker (retrying in the background) with `offline` on
 * `homewire/status` as its last will, and publishes `online` there, retained, on
 * every connection, followed by the retained discovery configurations seen so far.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import type { Sample } from "./sample.ts";
 *
 * declare const samples: Sample[];
 * const mqtt = createMqttPublisher({
 *   url: "mqtt://127.0.0.1:1883",
 *   log: createLog("collector"),
 * });
 * mqtt.publish(samples);
 * await mqtt.close(2000);
 * ```
 */
export function createMqttPublisher(
  options: MqttPublisherOptions,
): MqttPublisher {
  const { log } = options;
  const prefix = options.discoveryPrefix ?? "homeassistant";
  const url = new URL(options.url);
  const label = hideUserinfo(options.url);
  const password = decodeURIComponent(url.password);
  /** An error text with the password taken out, however it got there. */
  const clean = (error: unknown) => {
    const text = errorText(error);
    return password ? text.replaceAll(password, "***") : text;
  };
  const client = mqtt.connect({
    protocol: url.protocol === "mqtts:" ? "mqtts" : "mqtt",
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port ? Number(url.port) : url.protocol === "mqtts:" ? 8883 : 1883,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: password || undefined,
    clientId: `homewire-collector-${crypto.randomUUID().slice(0, 8)}`,
    reconnectPeriod: options.reconnectMs ?? 5000,
    connectTimeout: 10_000,
    will: { topic: STATUS_TOPIC, payload: "offline", qos: 1, retain: true },
  });
  /** Discovery configurations by topic; re-sent on every connection. */
  const configs = new Map<string, string>();
  /** Readings waiting for a connection. */
  let pending: { topic: string; payload: string }[] = [];
  let outage = false;
  let dropped = 0;
  let closed = false;

  const send = (topic: string, payload: string, retain: boolean) => {
    client.publish(topic, payload, { qos: 1, retain }, (error) => {
      if (error && !closed) {
        log.debug(`MQTT publish to ${topic} failed: ${clean(error)}`);
      }
    });
  };

  client.on("connect", () => {
    log.info(`MQTT connected to ${label}`);
    if (dropped > 0) {
      log.warn(
        `MQTT: ${dropped} readings dropped while the broker was unavailable (more than ${PENDING_LIMIT} waiting)`,
      );
    }
    outage = false;
    dropped = 0;
    send(STATUS_TOPIC, "online", true);
    for (const [topic, payload] of configs) send(topic, payload, true);
    const waiting = pending;
    pending = [];
    for (const { topic, payload } of waiting) send(topic, payload, false);
  });
  client.on("error", (error) => {
    if (outage || closed) {
      log.debug(`MQTT broker still unavailable: ${clean(error)}`);
      return;
    }
    outage = true;
    log.warn(
      `MQTT broker ${label} unavailable: ${
        clean(error)
      }; readings wait in memory until it is back (the store is not affected)`,
    );
  });
  client.on("offline", () => {
    if (!outage && !closed) {
      outage = true;
      log.warn(
        `MQTT broker ${label} unavailable: disconnected; readings wait in memory until it is back (the store is not affected)`,
      );
    }
  });

  return {
    publish(samples) {
      if (closed) return;
      for (const sample of samples) {
        try {
          for (const config of discoveryConfigs(sample, prefix)) {
            const known = configs.get(config.topic) === config.payload;
            configs.set(config.topic, config.payload);
            if (!known && client.connected) {
              send(config.topic, config.payload, true);
            }
          }
          const topic = readingTopic(sample);
          const payload = readingPayload(sample);
          if (client.connected) send(topic, payload, false);
          else {
            pending.push({ topic, payload });
            if (pending.length > PENDING_LIMIT) {
              pending.shift();
              dropped++;
            }
          }
        } catch (error) {
          log.debug(`MQTT publish failed: ${clean(error)}`);
        }
      }
    },
    async close(timeoutMs) {
      if (closed) return;
      closed = true;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      });
      const ending = (async () => {
        if (!client.connected && pending.length > 0) {
          // A connection may be on its way (a one-pass run): give it the time left.
          await new Promise((resolve) => client.once("connect", resolve));
        }
        if (client.connected) {
          await client.publishAsync(STATUS_TOPIC, "offline", {
            qos: 1,
            retain: true,
          }).catch(() => {});
          await client.endAsync(false);
        } else await client.endAsync(true);
      })().catch(() => {});
      await Promise.race([ending, bound]);
      clearTimeout(timer);
      // Still waiting for the broker: leave without it.
      if (!client.disconnected) client.end(true);
    },
  };
}
