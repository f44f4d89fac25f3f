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
import {
  openPointQueue,
  type PointQueue,
  type QueuedPoint,
} from "./point_queue.ts";
import { withMemoryFallback } from "./fallback_queue.ts";

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
  /**
   * Where points wait until the store acknowledges them; points already in it (from
   * an earlier run) are sent first. When it fails, new points go on in memory (one
   * ERROR naming `fileLabel`). Closed by `close`. @default an in-memory queue
   */
  queue?: PointQueue;
  /** Where the queue keeps unwritten points after `close`, for the ERROR line. */
  keptIn?: string;
  /** The queue's file as the ERROR line names it when it fails (`TSDB_BUFFER_PATH "..."`). */
  fileLabel?: string;
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
  /** Points the store acknowledged so far. */
  readonly written: number;
  /** When the store last acknowledged points (ms since the epoch); 0 for never. */
  readonly lastWriteAt: number;
}

type Outcome =
  | { kind: "written" }
  | { kind: "retry"; reason: string }
  /** `refused` of the batch were not stored; the others were (a partial write). */
  | { kind: "drop"; reason: string; refused: number };

type Entry = QueuedPoint;

/**
 * Builds a {@linkcode TsdbWriter}. Connection errors, time-outs, 429 and 5xx keep the
 * batch for a retry with backoff (WARNING once per outage); any other 4xx drops the
 * batch with an ERROR naming the store's reason, or, for a partial write, only the
 * points the store says it dropped.
 */
export function createTsdbWriter(options: TsdbWriterOptions): TsdbWriter {
  const { send, label, log, bufferLimit } = options;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const batchSize = options.batchSize ?? 5000;
  const backoff = options.backoff ?? { baseMs: 1000, maxMs: 60_000 };
  const stopping = new AbortController();
  const queue = options.queue === undefined
    ? openPointQueue(":memory:")
    : withMemoryFallback(options.queue, (error) => {
      const file = options.fileLabel ? ` ${options.fileLabel}` : "";
      log.error(
        `Time-series buffer${file} cannot be used: ${
          errorText(error)
        }; new points wait in memory (lost if the collector stops) and what the file holds is written at the next start: free the disk or move the file`,
      );
    });
  let draining: Promise<void> | undefined;
  let closed = false;
  /** Points left when the queue was closed. */
  let closedSize: number | undefined;
  let lastReason = "";
  let dropped = 0;
  let writtenTotal = 0;
  let lastWriteAt = 0;

  /** After a failed write: keeps the newest `bufferLimit` points. */
  function trim(): void {
    const excess = queue.size - bufferLimit;
    if (excess <= 0) return;
    queue.dropOldest(excess);
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
      const message = storeMessage(reply.text);
      const reason = `${reply.status} ${message}`.trim();
      if (reply.status === 429 || reply.status >= 500) {
        return { kind: "retry", reason };
      }
      const partial = partialWriteDropped(message);
      const refused = Math.min(batch.length, partial ?? batch.length);
      return { kind: "drop", reason, refused };
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
    while (queue.size > 0 && !stopping.signal.aborted) {
      const batch = queue.oldest(batchSize);
      // Empty only when the buffer file failed just now (its points wait in it).
      if (batch.length === 0) break;
      const outcome = await post(batch);
      if (outcome.kind === "retry") {
        lastReason = outcome.reason;
        // No count here: later passes add to the buffer during the outage.
        if (attempt === 0) {
          log.warn(
            `Time-series store ${label} unavailable: ${outcome.reason}; keeping the points for retry`,
          );
        } else log.debug(`Write retry ${attempt} failed: ${outcome.reason}`);
        trim();
        await sleep(backoffDelay(attempt++, backoff), stopping.signal);
        continue;
      }
      // Only now, acknowledged: a stop or crash before this line sends them again.
      queue.removeThrough(batch.at(-1)!);
      const refused = outcome.kind === "drop" ? outcome.refused : 0;
      const written = batch.length - refused;
      if (outcome.kind === "drop" && refused === 0) {
        log.warn(
          `Time-series store dropped no point but said: ${outcome.reason}`,
        );
      } else if (outcome.kind === "drop") {
        dropped += refused;
        const count = written === 0
          ? points(refused)
          : `${refused} of ${points(batch.length)}`;
        log.error(
          `Time-series store refused ${count}, dropped: ${outcome.reason}`,
        );
      }
      if (written > 0) {
        writtenTotal += written;
        lastWriteAt = Date.now();
      }
      if (written > 0 && attempt > 0) {
        log.info(`Time-series store reachable again: wrote ${points(written)}`);
      } else if (written > 0) log.debug(`Wrote ${points(written)}`);
      attempt = 0;
    }
  }

  function kick(): Promise<void> {
    draining ??= drain().finally(() => {
      draining = undefined;
      if (queue.size > 0 && !stopping.signal.aborted) kick();
    });
    return draining;
  }

  async function flush(timeoutMs: number): Promise<boolean> {
    const limit = deadline(timeoutMs);
    try {
      while (queue.size > 0 && !limit.signal.aborted) {
        await raceSignal(kick(), limit.signal).catch(() => {});
      }
    } finally {
      limit.clear();
    }
    return queue.size === 0;
  }

  if (queue.size > 0) {
    log.info(
      `Time-series buffer holds ${
        points(queue.size)
      } from an earlier run: writing them first, with their original times`,
    );
    kick();
  }

  return {
    get pending() {
      return closedSize ?? queue.size;
    },
    get dropped() {
      return dropped;
    },
    get written() {
      return writtenTotal;
    },
    get lastWriteAt() {
      return lastWriteAt;
    },
    write(lines) {
      if (closed) return;
      // Not bounded here: the bound is for points kept after a failure (see trim).
      queue.add(lines);
      kick();
    },
    flush,
    async close(timeoutMs) {
      closed = true;
      const empty = await flush(timeoutMs);
      stopping.abort();
      await draining;
      closedSize = queue.size;
      queue.close();
      if (!empty && closedSize > 0) {
        const kept = options.keptIn ? `; kept in ${options.keptIn}` : "";
        log.error(
          `${points(closedSize)} not written to the time-series store: ${
            lastReason || "no answer in time"
          }${kept}`,
        );
      }
    },
  };
}

/** `1 point`, `2 points`. */
function points(count: number): string {
  return `${count} ${count === 1 ? "point" : "points"}`;
}

/**
 * How many points of a batch a partial write dropped, `undefined` when the reply is
 * no partial write (the whole batch was refused). InfluxDB (1.x: 400 `{"error"}`,
 * 2.x: 422 `{"message"}`) stores the other points and ends its message with
 * `dropped=N`. N leaves out the lines it could not parse (1.x says `dropped=0` for
 * them), listed one "unable to parse '...'" each. VictoriaMetrics sends no such
 * reply: it skips what it cannot store and answers 204.
 *
 * @example
 * ```ts
 * partialWriteDropped("partial write: field type conflict: ... dropped=1"); // 1
 * partialWriteDropped("unable to parse 'x': invalid field format"); // undefined
 * ```
 */
export function partialWriteDropped(message: string): number | undefined {
  const dropped = /\bpartial write: [^]*\bdropped=(\d+)\s*$/.exec(message);
  if (!dropped) return undefined;
  const unparsed =
    message.match(/(?:^|\n|partial write: )unable to parse '/g)?.length ?? 0;
  return Number(dropped[1]) + unparsed;
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
