/**
 * Posts line protocol to the time-series store with a bounded retry buffer: points
 * that cannot be written yet are kept (oldest dropped when full) and retried with
 * backoff, so nothing is lost while the store is briefly down. The bound applies only
 * after a write failed: a healthy store receives every point, however many one pass
 * produces.
 *
 * @module
 */
import { backoffDelay, sleep } from "../../lib/backoff.ts";
import { errorText, type Log } from "../../lib/log.ts";
import { deadline, raceSignal } from "../../lib/deadline.ts";
import type { SendLines } from "./line_sender.ts";

/** What {@linkcode createTsdbWriter} needs. */
export interface TsdbWriterOptions {
  /** Sends one batch to the store. */
  send: SendLines;
  /** The store's write URL (without credentials), for logs. */
  label: string;
  /** Most points kept after a write failed (the oldest are dropped beyond it). */
  bufferLimit: number;
  /** Logger. */
  log: Log;
  /** Time limit of one write request. @default 10000 */
  timeoutMs?: number;
  /** Most points per request. @default 5000 */
  batchSize?: number;
  /** Backoff between retries. @default { baseMs: 1000, maxMs: 60000 } */
  backoff?: { baseMs: number; maxMs: number };
}

/** The writer of {@linkcode createTsdbWriter}. */
export interface TsdbWriter {
  /** Queues lines of line protocol and starts sending them. */
  write(lines: readonly string[]): void;
  /** Waits until every queued point is written or dropped, at most `timeoutMs`. */
  flush(timeoutMs: number): Promise<boolean>;
  /**
   * Final flush: waits at most `timeoutMs` for the queue to drain, then gives up,
   * logging at ERROR how many points were not written. Later writes are ignored.
   */
  close(timeoutMs: number): Promise<void>;
  /** Points waiting to be written. */
  readonly pending: number;
  /** Points dropped so far: refused by the store, or beyond the buffer's bound. */
  readonly dropped: number;
}

type Outcome = { kind: "written" } | { kind: "retry" | "drop"; reason: string };

interface Entry {
  readonly line: string;
}

/**
 * Builds a {@linkcode TsdbWriter}. Connection errors, time-outs, 429 and 5xx keep the
 * batch for a retry with backoff (WARNING once per outage); any other 4xx drops the
 * batch with an ERROR naming the store's reason.
 */
export function createTsdbWriter(options: TsdbWriterOptions): TsdbWriter {
  const { send, label, log, bufferLimit } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const batchSize = options.batchSize ?? 5000;
  const backoff = options.backoff ?? { baseMs: 1000, maxMs: 60_000 };
  const stopping = new AbortController();
  let buffer: Entry[] = [];
  let draining: Promise<void> | undefined;
  let closed = false;
  let lastReason = "";
  let dropped = 0;

  /** After a failed write: keeps the newest `bufferLimit` points. */
  function trim(): void {
    const excess = buffer.length - bufferLimit;
    if (excess <= 0) return;
    buffer.splice(0, excess);
    dropped += excess;
    log.warn(
      `Time-series buffer full (${
        points(bufferLimit)
      }): dropped the ${excess} oldest`,
    );
  }

  async function post(batch: readonly Entry[]): Promise<Outcome> {
    const limit = deadline(timeoutMs, stopping.signal);
    try {
      const reply = await send(batch.map((entry) => entry.line), limit.signal);
      if (reply.status >= 200 && reply.status < 300) return { kind: "written" };
      const reason = `${reply.status} ${storeMessage(reply.text)}`.trim();
      const retry = reply.status === 429 || reply.status >= 500;
      return { kind: retry ? "retry" : "drop", reason };
    } catch (error) {
      return {
        kind: "retry",
        reason: limit.expired()
          ? `no answer within ${timeoutMs} ms`
          : errorText(error),
      };
    } finally {
      limit.clear();
    }
  }

  async function drain(): Promise<void> {
    let attempt = 0;
    while (buffer.length > 0 && !stopping.signal.aborted) {
      const batch = buffer.slice(0, batchSize);
      const outcome = await post(batch);
      if (outcome.kind === "retry") {
        lastReason = outcome.reason;
        const excess = Math.max(0, buffer.length - bufferLimit);
        if (attempt === 0) {
          log.warn(
            `Time-series store ${label} unavailable: ${outcome.reason}; keeping ${
              points(buffer.length - excess)
            } for retry`,
          );
        } else log.debug(`Write retry ${attempt} failed: ${outcome.reason}`);
        trim();
        await sleep(backoffDelay(attempt++, backoff), stopping.signal);
        continue;
      }
      const sent = new Set(batch);
      buffer = buffer.filter((entry) => !sent.has(entry));
      if (outcome.kind === "drop") {
        dropped += batch.length;
        log.error(
          `Time-series store refused ${
            points(batch.length)
          }, dropped: ${outcome.reason}`,
        );
      } else if (attempt > 0) {
        log.info(
          `Time-series store reachable again: wrote ${points(batch.length)}`,
        );
      } else log.debug(`Wrote ${points(batch.length)}`);
      attempt = 0;
    }
  }

  function kick(): Promise<void> {
    draining ??= drain().finally(() => {
      draining = undefined;
      if (buffer.length > 0 && !stopping.signal.aborted) kick();
    });
    return draining;
  }

  async function flush(timeoutMs: number): Promise<boolean> {
    const limit = deadline(timeoutMs);
    try {
      while (buffer.length > 0 && !limit.signal.aborted) {
        await raceSignal(kick(), limit.signal).catch(() => {});
      }
    } finally {
      limit.clear();
    }
    return buffer.length === 0;
  }

  return {
    get pending() {
      return buffer.length;
    },
    get dropped() {
      return dropped;
    },
    write(lines) {
      if (closed) return;
      // Not bounded here: the bound is for points kept after a failure (see trim).
      buffer.push(...lines.map((line) => ({ line })));
      kick();
    },
    flush,
    async close(timeoutMs) {
      closed = true;
      const empty = await flush(timeoutMs);
      stopping.abort();
      await draining;
      if (!empty && buffer.length > 0) {
        log.error(
          `${points(buffer.length)} not written to the time-series store: ${
            lastReason || "no answer in time"
          }`,
        );
      }
    },
  };
}

/** `1 point`, `2 points`. */
function points(count: number): string {
  return `${count} ${count === 1 ? "point" : "points"}`;
}

/** The store's error text: `{"error": "..."}` (InfluxDB 1.x), `{"message": ...}` or raw. */
function storeMessage(text: string): string {
  try {
    const body = JSON.parse(text);
    const message = body?.error ?? body?.message;
    if (typeof message === "string") return message;
  } catch {
    // not JSON: the raw text
  }
  return text.trim().slice(0, 300);
}
