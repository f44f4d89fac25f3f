/**
 * The live change feed of the `messages` role: one Server-Sent Events stream per
 * subscriber, fed from the change table the database writes in the transaction of
 * each write, so every process on the same database sends every change.
 *
 * @module
 */
import { errorText, type Log } from "../../lib/log.ts";
import type { MessageFilter } from "./list_query.ts";
import type { MessageStore } from "./message_store.ts";
import {
  type BatchMember,
  createFeedBatches,
  type FilteredBatch,
  filteredBytes,
  unseenBytes,
} from "./_feed_batch.ts";
import { CHANGES_PAGE, createFeedReader } from "./_feed_reader.ts";

/** Dependencies and limits of {@linkcode createChangeFeed}. */
export interface ChangeFeedOptions {
  /** Where the records and their changes are kept. */
  store: MessageStore;
  /** Where a database that cannot be read is reported. */
  log: Log;
  /** How many of the newest changes are kept for resuming. @default 10000 */
  keep?: number;
  /**
   * How often, in ms, the store is asked whether anything changed (its
   * `revision()`, which costs no query), and when it did, for the new changes:
   * how soon the writes of other processes are seen (a write through this process
   * calls {@linkcode ChangeFeed.wake}). @default 5
   */
  pollMs?: number;
  /** How often, in ms, an idle stream gets a comment line. @default 15000 */
  heartbeatMs?: number;
  /** The `retry:` sent to clients: when to come back, in ms. @default 2000 */
  retryMs?: number;
  /**
   * How many bytes may wait for a subscriber that does not read: one still past it
   * when the next changes come (or the next heartbeat) is closed, and comes back
   * with `Last-Event-ID`. @default 1048576
   */
  queueBytes?: number;
  /**
   * The writes to subscribers per second the feed aims to stay under: each write
   * costs the server a system call (and each client a read) whatever its size, so
   * with many subscribers the changes are sent in batches, at most one every
   * `subscribers / writesPerSecond` seconds (1,000 subscribers: every 25 ms), and
   * never held longer than `maxBatchMs`. A change after a quiet spell goes out at
   * the next poll. @default 40000
   */
  writesPerSecond?: number;
  /** The longest a change is held to be sent with the next ones, in ms. @default 25 */
  maxBatchMs?: number;
}

/** A change feed: subscribers, and the loop that reads the changes for them. */
export interface ChangeFeed {
  /**
   * A `text/event-stream` body of the changes to records matching `filter`: after
   * change `lastEventId` when given (those kept first, in order; a `reset` event
   * first when it is older than the changes kept), else from now on.
   */
  subscribe(
    filter: MessageFilter,
    lastEventId: number | undefined,
  ): ReadableStream<Uint8Array>;
  /** How many streams are open. */
  readonly subscribers: number;
  /**
   * Reads the new changes now rather than at the next poll: called after each
   * write through this process, so its own writes reach its subscribers at once;
   * the poll remains for the writes of other processes.
   */
  wake(): void;
  /** Ends every stream and the polling. */
  close(): void;
}

/** Changes that may wait for a subscriber still reading its older ones. */
const MAX_PENDING = 10_000;

const encoder = new TextEncoder();
const KEEP_ALIVE = encoder.encode(": keep-alive\n\n");

/** One subscriber's stream state: offered the batches of changes read by the loop. */
interface Subscriber extends BatchMember {
  /** A comment line, keeping proxies from closing an idle stream. */
  heartbeat(): void;
  /** Ends the stream (the feed closes). */
  end(): void;
}

/**
 * Returns a change feed on `store`: a loop asks the store every `pollMs` whether
 * anything changed, reads the new changes by sequence number (on PostgreSQL the
 * revision moves on the notification of any process's write; on SQLite on any
 * commit to the file), and offers them, in order, to every subscriber, as the
 * events its filter sends (`created`, `updated`, or `deleted` for a record that
 * stops matching). The events of a batch are encoded once per distinct filter and
 * sent to each subscriber in one write; with many subscribers, batches are spaced
 * so that the writes stay under `writesPerSecond`. Changes older than the newest `keep` are
 * forgotten as it goes. A subscriber whose unread events pass `queueBytes` is
 * closed.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import { openSqliteMessageStore } from "./sqlite_message_store.ts";
 *
 * const store = openSqliteMessageStore(":memory:");
 * const feed = createChangeFeed({ store, log: createLog("messages") });
 * const events = feed.subscribe({ author: ["bob"] }, undefined);
 * await store.create({ author: "bob", message: "hi" });
 * // events: "retry: 2000\nid: 0\n\n", then "event: created\nid: 1\ndata: {...}\n\n"
 * await events.cancel();
 * feed.close();
 * ```
 */
export function createChangeFeed(options: ChangeFeedOptions): ChangeFeed {
  const { store, log } = options;
  const retryMs = options.retryMs ?? 2000;
  const queueBytes = options.queueBytes ?? 1024 * 1024;
  // The subscribers, grouped by filter.
  const batches = createFeedBatches<Subscriber>();
  const subscribers = batches.members;
  const reader = createFeedReader({
    store,
    log,
    batches,
    keep: Math.max(1, options.keep ?? 10_000),
    writesPerSecond: options.writesPerSecond ?? 40_000,
    maxBatchMs: options.maxBatchMs ?? 25,
  });
  let failing = false;
  let closed = false;
  // One read of the store at a time: subscribers get changes in order.
  let running: Promise<void> = Promise.resolve();
  const serially = (work: () => Promise<void>) => {
    const next = running.then(work);
    running = next.catch(() => {});
    return next;
  };

  const poll = () => {
    if (closed) return Promise.resolve();
    return serially(reader.read).then(() => {
      if (failing) log.info("messages change feed reads the database again");
      failing = false;
    }, (error) => {
      reader.reread();
      if (!failing) {
        log.warn(
          `messages change feed cannot read the database (trying again): ${
            errorText(error)
          }`,
        );
      }
      failing = true;
    });
  };
  let pollBusy = false;
  const tick = () => {
    if (pollBusy) return;
    pollBusy = true;
    poll().finally(() => pollBusy = false);
  };
  const pollTimer = setInterval(tick, options.pollMs ?? 5);
  let wakeTimer: ReturnType<typeof setTimeout> | undefined;
  const heartbeatTimer = setInterval(() => {
    for (const subscriber of subscribers) subscriber.heartbeat();
  }, options.heartbeatMs ?? 15_000);
  Deno.unrefTimer(pollTimer);
  Deno.unrefTimer(heartbeatTimer);

  const subscribe = (
    filter: MessageFilter,
    lastEventId: number | undefined,
  ): ReadableStream<Uint8Array> => {
    let leave: (() => void) | undefined;
    let done = false;
    const finish = () => {
      done = true;
      leave?.();
      leave = undefined;
    };
    return new ReadableStream<Uint8Array>({
      async start(controller) {
        const send = (bytes: Uint8Array) => {
          if (!done) controller.enqueue(bytes);
        };
        // Checked before each batch of changes and each heartbeat: a burst may
        // pass the bound (its texts are shared by every subscriber), but a
        // subscriber that has not read it by the next one is closed.
        const tooSlow = () => {
          if (done || (controller.desiredSize ?? 0) >= 0) return false;
          finish();
          controller.error(
            new Error(
              "Subscriber too slow: its unread events passed the limit",
            ),
          );
          return true;
        };
        // The newest change handled: older ones offered again are skipped.
        let seen = 0;
        let live = false;
        const pending: FilteredBatch[] = [];
        let pendingChanges = 0;
        const deliver = (batch: FilteredBatch) => {
          const bytes = unseenBytes(batch, seen);
          if (bytes) send(bytes);
          seen = batch.reset ? batch.last : Math.max(seen, batch.last);
        };
        const subscriber: Subscriber = {
          offer(batch) {
            if (tooSlow()) return;
            if (live) return deliver(batch);
            pending.push(batch);
            pendingChanges += Math.max(1, batch.events.length);
            if (pendingChanges > MAX_PENDING) {
              finish();
              controller.error(new Error("Subscriber too far behind"));
            }
          },
          heartbeat() {
            if (!tooSlow()) send(KEEP_ALIVE);
          },
          end() {
            finish();
            controller.close();
          },
        };
        try {
          await serially(async () => {
            if (reader.newest === undefined) await reader.read();
          });
          if (done || closed) return;
          leave = batches.join(filter, subscriber);
          const upTo = reader.newest ?? 0;
          const start = `retry: ${retryMs}\n\n`;
          if (lastEventId === undefined) {
            seen = upTo;
            send(encoder.encode(`${start}id: ${upTo}\n\n`));
          } else {
            const range = await store.changeRange();
            const lost = lastEventId < range.oldest - 1 ||
              (range.oldest === 0 && lastEventId > range.newest) ||
              lastEventId > Math.max(range.newest, upTo);
            if (lost) {
              seen = upTo;
              send(
                encoder.encode(
                  `${start}event: reset\nid: ${upTo}\ndata: {}\n\n`,
                ),
              );
            } else {
              seen = lastEventId;
              send(encoder.encode(start));
              for (;;) {
                const changes = await store.changesAfter(seen, CHANGES_PAGE);
                if (done) return;
                const bytes = filteredBytes(filter, changes);
                if (bytes) send(bytes);
                seen = changes.at(-1)?.seq ?? seen;
                if (changes.length < CHANGES_PAGE) break;
              }
            }
          }
          live = true;
          for (const batch of pending.splice(0)) deliver(batch);
        } catch (error) {
          finish();
          controller.error(error);
        }
      },
      cancel: finish,
    }, { highWaterMark: queueBytes, size: (chunk) => chunk.byteLength });
  };

  return {
    subscribe,
    get subscribers() {
      return subscribers.size;
    },
    wake() {
      if (closed || wakeTimer !== undefined || subscribers.size === 0) return;
      // After the current task (the response to the write goes first).
      wakeTimer = setTimeout(() => {
        wakeTimer = undefined;
        tick();
      }, 0);
      Deno.unrefTimer(wakeTimer);
    },
    close() {
      closed = true;
      clearTimeout(wakeTimer);
      clearInterval(pollTimer);
      clearInterval(heartbeatTimer);
      for (const subscriber of [...subscribers]) subscriber.end();
    },
  };
}
