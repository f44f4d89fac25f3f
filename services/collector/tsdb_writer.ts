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
import {
  type StoreAdvice,
  type StoreVerdict,
  storeVerdict,
} from "./store_verdict.ts";

/** What {@linkcode createTsdbWriter} needs. */
export interface TsdbWriterOptions {
  /** Sends one batch to the store. */
  send: SendLines;
  /** The store's write URL (without credentials), for logs. */
  label: string;
  /**
   * What the writer writes to, for the ERROR that says what to do when the store
   * refuses the writes (credentials, a missing database). @default a v1 database "home"
   */
  advice?: StoreAdvice;
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

type Entry = QueuedPoint;

/**
 * Builds a {@linkcode TsdbWriter}. Connection errors, time-outs, 408, 429 and 5xx keep
 * the batch for a retry with backoff (WARNING once per outage); 401, 403, 404 and any
 * other refusal of the write keep it too, with one ERROR naming the cause and what to
 * do (see {@linkcode storeVerdict}); 413 sends it again in halves. Only the store's
 * verdict on the points (400 or 422 naming lines, a partial write) drops points, and
 * only those it names.
 */
export function createTsdbWriter(options: TsdbWriterOptions): TsdbWriter {
  const { send, label, log, bufferLimit } = options;
  const advice = options.advice ??
    { api: "v1", database: "home", bucket: "home", org: "" };
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
  /** The cause of the failed writes already logged in this outage. */
  let reportedCause: string | undefined;
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

  async function post(batch: readonly Entry[]): Promise<StoreVerdict> {
    const limit = deadline(timeoutMs, stopping.signal);
    try {
      const response = await send(
        batch.map((entry) => entry.line),
        limit.signal,
      );
      return storeVerdict(response, batch.length, advice);
    } catch (error) {
      return {
        kind: "retry",
        reason: limit.expired()
          ? `no response within ${timeoutMs} ms`
          : errorText(error),
      };
    } finally {
      limit.clear();
    }
  }

  /** Logs a failed write that keeps the batch: once per cause and outage. */
  function reportRetry(
    verdict: Extract<StoreVerdict, { kind: "retry" }>,
    attempt: number,
  ): void {
    const cause = verdict.advice === undefined ? "passing" : verdict.reason;
    if (cause === reportedCause) {
      log.debug(`Write retry ${attempt} failed: ${verdict.reason}`);
    } else if (verdict.advice === undefined) {
      // No count here: later passes add to the buffer during the outage.
      log.warn(
        `Time-series store ${label} unavailable: ${verdict.reason}; keeping the points for retry`,
      );
    } else {
      log.error(
        `Time-series store ${label} refused the write: ${verdict.reason}; keeping the points and retrying: ${verdict.advice}`,
      );
    }
    reportedCause = cause;
  }

  async function drain(): Promise<void> {
    let attempt = 0;
    /** Most points per request the store takes (halved by each 413). */
    let cap = batchSize;
    /** Most points in the next request (halved to find the lines refused). */
    let limit = cap;
    while (queue.size > 0 && !stopping.signal.aborted) {
      const batch = queue.oldest(limit);
      // Empty only when the buffer file failed just now (its points wait in it).
      if (batch.length === 0) break;
      const verdict = await post(batch);
      if (verdict.kind === "retry") {
        lastReason = verdict.advice === undefined
          ? verdict.reason
          : `${verdict.reason}: ${verdict.advice}`;
        reportRetry(verdict, attempt);
        trim();
        await sleep(backoffDelay(attempt++, backoff), stopping.signal);
        continue;
      }
      if (verdict.kind === "split") {
        limit = Math.ceil(batch.length / 2);
        if (verdict.tooLarge) cap = limit;
        log.debug(
          `Time-series store refused ${
            points(batch.length)
          } at once (${verdict.reason}): sending ${limit} at a time`,
        );
        continue;
      }
      // Only now, acknowledged: a stop or crash before this line sends them again.
      queue.removeThrough(batch.at(-1)!);
      limit = cap;
      const refused = verdict.kind === "drop" ? verdict.refused : 0;
      const written = batch.length - refused;
      if (verdict.kind === "drop" && refused === 0) {
        log.warn(
          `Time-series store dropped no point but said: ${verdict.reason}`,
        );
      } else if (verdict.kind === "drop") {
        dropped += refused;
        const count = written === 0
          ? points(refused)
          : `${refused} of ${points(batch.length)}`;
        log.error(
          `Time-series store refused ${count}, dropped: ${verdict.reason}`,
        );
      }
      if (written > 0) {
        writtenTotal += written;
        lastWriteAt = Date.now();
      }
      if (written > 0 && reportedCause !== undefined) {
        log.info(`Time-series store reachable again: wrote ${points(written)}`);
      } else if (written > 0) log.debug(`Wrote ${points(written)}`);
      // The store judged the points: the outage is over, a new one is reported.
      reportedCause = undefined;
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
            lastReason || "no response in time"
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
