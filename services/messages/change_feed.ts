/**
 * The live change feed of the `messages` role: one Server-Sent Events stream per
 * subscriber, fed from the change table the database writes in the transaction of
 * each write, so every process on the same database sends every change.
 *
 * @module
 */
import { concatBytes } from "../../lib/concat_bytes.ts";
import { errorText, type Log } from "../../lib/log.ts";
import type { MessageFilter } from "./list_query.ts";
import type { MessageChange, MessageStore } from "./message_store.ts";
import { matchesFilter } from "./_filter_match.ts";

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
   * `revision()`, which costs no query), and when it did, for the new changes.
   * @default 5
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
  /** Ends every stream and the polling. */
  close(): void;
}

/** Changes read from the store at once. */
const PAGE = 1000;

/** Changes that may wait for a subscriber still reading its older ones. */
const MAX_PENDING = 10_000;

const encoder = new TextEncoder();

/** One subscriber's stream state. */
interface Subscriber {
  /** Offers a change read by the loop. */
  offer(change: MessageChange, events: EventTexts): void;
  /** A comment line, keeping proxies from closing an idle stream. */
  heartbeat(): void;
  /** Ends the stream (the feed closes). */
  end(): void;
}

/** The event texts of one change, made once for every subscriber. */
interface EventTexts {
  change: MessageChange;
  /** `created` or `updated` with the record. */
  record(): Uint8Array;
  /** `deleted` with the id. */
  deleted(): Uint8Array;
}

/**
 * Returns a change feed on `store`: a loop asks the store every `pollMs` whether
 * anything changed, reads the new changes by sequence number (on PostgreSQL the
 * revision moves on the notification of any process's write; on SQLite on any
 * commit to the file), and offers each, in order, to every subscriber, which sends
 * it when it matches its filter (`created`, `updated`, or `deleted` for a record
 * that stops matching). Changes older than the newest `keep` are forgotten as it
 * goes. A subscriber whose unread events pass `queueBytes` is closed.
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
  const keep = Math.max(1, options.keep ?? 10_000);
  const slack = Math.max(1, Math.floor(keep / 100));
  const retryMs = options.retryMs ?? 2000;
  const queueBytes = options.queueBytes ?? 1024 * 1024;
  const subscribers = new Set<Subscriber>();
  // The newest change offered to subscribers (undefined until first read), the
  // store's revision when the changes were last read, and the oldest change kept.
  let newest: number | undefined;
  let seenRevision: number | undefined;
  let oldest = 0;
  let failing = false;
  // Counts the batches of changes offered, for the slow-subscriber check.
  let batch = 0;
  let closed = false;
  // One read of the store at a time: subscribers get changes in order.
  let running: Promise<void> = Promise.resolve();
  const serially = (work: () => Promise<void>) => {
    const next = running.then(work);
    running = next.catch(() => {});
    return next;
  };

  const forgetOld = async () => {
    if (newest === undefined || newest - oldest + 1 <= keep + slack) return;
    const through = newest - keep;
    await store.forgetChanges(through);
    oldest = through + 1;
  };

  const read = async () => {
    if (newest === undefined) {
      const revision = store.revision();
      const range = await store.changeRange();
      newest = range.newest;
      oldest = range.oldest;
      seenRevision = revision;
      return;
    }
    const revision = store.revision();
    if (revision === seenRevision) return;
    if (subscribers.size === 0) {
      // Nobody to send to: only where the changes stand, to forget old ones.
      const range = await store.changeRange();
      seenRevision = revision;
      newest = range.newest;
      oldest = range.oldest;
      await forgetOld();
      return;
    }
    for (;;) {
      const changes = await store.changesAfter(newest, PAGE);
      batch++;
      for (const change of changes) {
        newest = change.seq;
        const events = eventTexts(change);
        for (const subscriber of subscribers) subscriber.offer(change, events);
      }
      if (changes.length < PAGE) break;
    }
    seenRevision = revision;
    await forgetOld();
  };

  const poll = () => {
    if (closed) return Promise.resolve();
    return serially(read).then(() => {
      if (failing) log.info("messages change feed reads the database again");
      failing = false;
    }, (error) => {
      seenRevision = undefined;
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
  const pollTimer = setInterval(() => {
    if (pollBusy) return;
    pollBusy = true;
    poll().finally(() => pollBusy = false);
  }, options.pollMs ?? 5);
  const heartbeatTimer = setInterval(() => {
    for (const subscriber of subscribers) subscriber.heartbeat();
  }, options.heartbeatMs ?? 15_000);
  Deno.unrefTimer(pollTimer);
  Deno.unrefTimer(heartbeatTimer);

  const subscribe = (
    filter: MessageFilter,
    lastEventId: number | undefined,
  ): ReadableStream<Uint8Array> => {
    let subscriber: Subscriber | undefined;
    let done = false;
    const finish = () => {
      done = true;
      if (subscriber) subscribers.delete(subscriber);
    };
    return new ReadableStream<Uint8Array>({
      async start(controller) {
        // Texts sent in one turn of the event loop (a batch of changes, the
        // stream's start) go out as one chunk: one write for the lot.
        let outbox: Uint8Array[] = [];
        const flush = () => {
          const chunks = outbox;
          outbox = [];
          if (done || chunks.length === 0) return;
          controller.enqueue(
            chunks.length === 1 ? chunks[0]! : concatBytes(chunks),
          );
        };
        const send = (bytes: Uint8Array) => {
          if (done) return;
          outbox.push(bytes);
          if (outbox.length === 1) queueMicrotask(flush);
        };
        // Checked before each batch of changes and each heartbeat: a burst may
        // pass the bound (its texts are shared by every subscriber), but a
        // subscriber that has not read it by the next one is closed.
        let checkedBatch = -1;
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
        const pending: [MessageChange, EventTexts][] = [];
        const deliver = (change: MessageChange, events: EventTexts) => {
          if (change.seq <= seen) return;
          seen = change.seq;
          const text = eventFor(filter, change, events);
          if (text) send(text);
        };
        subscriber = {
          offer(change, events) {
            if (checkedBatch !== batch) {
              checkedBatch = batch;
              if (tooSlow()) return;
            }
            if (live) return deliver(change, events);
            pending.push([change, events]);
            if (pending.length > MAX_PENDING) {
              finish();
              controller.error(new Error("Subscriber too far behind"));
            }
          },
          heartbeat() {
            if (!tooSlow()) send(encoder.encode(": keep-alive\n\n"));
          },
          end() {
            flush();
            finish();
            controller.close();
          },
        };
        try {
          await serially(async () => {
            if (newest === undefined) await read();
          });
          if (done || closed) return;
          subscribers.add(subscriber);
          const upTo = newest ?? 0;
          send(encoder.encode(`retry: ${retryMs}\n\n`));
          if (lastEventId === undefined) {
            seen = upTo;
            send(encoder.encode(`id: ${upTo}\n\n`));
          } else {
            const range = await store.changeRange();
            const lost = lastEventId < range.oldest - 1 ||
              (range.oldest === 0 && lastEventId > range.newest) ||
              lastEventId > Math.max(range.newest, upTo);
            if (lost) {
              seen = upTo;
              send(encoder.encode(`event: reset\nid: ${upTo}\ndata: {}\n\n`));
            } else {
              seen = lastEventId;
              for (;;) {
                const changes = await store.changesAfter(seen, PAGE);
                if (done) return;
                for (const change of changes) {
                  deliver(change, eventTexts(change));
                }
                if (changes.length < PAGE) break;
              }
            }
          }
          live = true;
          for (const [change, events] of pending.splice(0)) {
            deliver(change, events);
          }
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
    close() {
      closed = true;
      clearInterval(pollTimer);
      clearInterval(heartbeatTimer);
      for (const subscriber of [...subscribers]) subscriber.end();
    },
  };
}

/** The texts of `change`'s possible events, each made on first use. */
function eventTexts(change: MessageChange): EventTexts {
  let record: Uint8Array | undefined;
  let deleted: Uint8Array | undefined;
  const { seq, kind } = change;
  return {
    change,
    record: () =>
      record ??= encoder.encode(
        `event: ${kind}\nid: ${seq}\ndata: ${
          JSON.stringify(change.record)
        }\n\n`,
      ),
    deleted: () =>
      deleted ??= encoder.encode(
        `event: deleted\nid: ${seq}\ndata: ${
          JSON.stringify({ id: change.record.id })
        }\n\n`,
      ),
  };
}

/**
 * The event a subscriber with `filter` gets for `change`, if any: a record that
 * stops matching after an update is `deleted` for it.
 */
function eventFor(
  filter: MessageFilter,
  change: MessageChange,
  events: EventTexts,
): Uint8Array | undefined {
  const matches = matchesFilter(filter, change.record);
  switch (change.kind) {
    case "created":
      return matches ? events.record() : undefined;
    case "updated":
      if (matches) return events.record();
      return change.previous && matchesFilter(filter, change.previous)
        ? events.deleted()
        : undefined;
    case "deleted":
      return matches ? events.deleted() : undefined;
  }
}
