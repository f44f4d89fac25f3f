/**
 * The read side of the change feed: the store's new changes read by sequence
 * number, page by page, offered as batches paced for the number of subscribers,
 * a lost place turned into a `reset`, and the changes past `keep` forgotten.
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import type { MessageStore } from "./message_store.ts";
import type { BatchMember, FeedBatches } from "./_feed_batch.ts";

/** Changes read from the store at once. */
export const CHANGES_PAGE = 1000;

/** Dependencies and limits of {@linkcode createFeedReader}, defaults applied. */
export interface FeedReaderOptions {
  /** Where the changes are kept. */
  store: MessageStore;
  /** Where a lost place is reported. */
  log: Log;
  /** The subscribers the changes are offered to. */
  batches: FeedBatches<BatchMember>;
  /** How many of the newest changes are kept for resuming (at least 1). */
  keep: number;
  /** The writes to subscribers per second the batches are spaced for. */
  writesPerSecond: number;
  /** The longest a change is held to be sent with the next ones, in ms. */
  maxBatchMs: number;
}

/** Reads the changes for a feed's subscribers; one read at a time. */
export interface FeedReader {
  /** The newest change offered to subscribers: `undefined` until first read. */
  readonly newest: number | undefined;
  /**
   * Reads the changes made since the last read and offers them, unless the store's
   * revision has not moved or the last batch went out too recently; the first read
   * only notes where the changes stand. Must not run while another does.
   */
  read(): Promise<void>;
  /** Makes the next read ask for changes whatever the revision (a read failed). */
  reread(): void;
}

/**
 * Returns a {@linkcode FeedReader} on `store` offering to `batches`: with `n`
 * subscribers, batches go out at most every `min(maxBatchMs, n / writesPerSecond)`
 * seconds; changes after the newest read that are gone, or a numbering gone back,
 * is logged and offered as a `reset`; changes older than the newest `keep` are
 * forgotten once 1% more are kept.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import { createFeedBatches } from "./_feed_batch.ts";
 * import { openSqliteMessageStore } from "./sqlite_message_store.ts";
 *
 * const store = openSqliteMessageStore(":memory:");
 * const reader = createFeedReader({
 *   store,
 *   log: createLog("messages"),
 *   batches: createFeedBatches(),
 *   keep: 10_000,
 *   writesPerSecond: 40_000,
 *   maxBatchMs: 25,
 * });
 * await reader.read();
 * reader.newest; // 0
 * await store.close();
 * ```
 */
export function createFeedReader(options: FeedReaderOptions): FeedReader {
  const { store, log, batches, keep, writesPerSecond, maxBatchMs } = options;
  const slack = Math.max(1, Math.floor(keep / 100));
  const subscribers = batches.members;
  // When the changes were last sent to subscribers, and when the range of the
  // changes kept was last checked for a lost place (performance.now()).
  let sentAt = -Infinity;
  let rangeCheckedAt = -Infinity;
  // The newest change offered to subscribers (undefined until first read), the
  // store's revision when the changes were last read, and the oldest change kept.
  let newest: number | undefined;
  let seenRevision: number | undefined;
  let oldest = 0;

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
    const now = performance.now();
    const spacing = Math.min(
      maxBatchMs,
      subscribers.size * 1000 / writesPerSecond,
    );
    // Too soon after the last batch: the changes wait for the next polls.
    if (now - sentAt < spacing) return;
    if (subscribers.size === 0) {
      // Nobody to send to: only where the changes stand, to forget old ones.
      const range = await store.changeRange();
      seenRevision = revision;
      newest = range.newest;
      oldest = range.oldest;
      await forgetOld();
      return;
    }
    for (let page = 0;; page++) {
      const changes = await store.changesAfter(newest, CHANGES_PAGE);
      // A gap is checked at once; a read finding nothing (the store moved with
      // no change: a statement that changed nothing, a listener down) at most
      // once a second.
      const gap = changes.length > 0 && changes[0]!.seq > newest + 1;
      const empty = changes.length === 0 && now - rangeCheckedAt >= 1000;
      if (page === 0 && (gap || empty)) {
        rangeCheckedAt = now;
        // Changes after `newest` forgotten (another process forgot a burst larger
        // than `keep` before this one read it), or the numbering gone back (the
        // change table emptied, an older copy of the file put back): subscribers
        // are told to reload, and go on from the newest change.
        const range = await store.changeRange();
        if (range.oldest > newest + 1 || range.newest < newest) {
          log.warn(
            `messages change feed lost its place (changes ${
              newest + 1
            } on are gone): its subscribers get a reset event`,
          );
          newest = range.newest;
          oldest = range.oldest;
          sentAt = now;
          batches.offerReset(newest);
          continue;
        }
      }
      if (changes.length > 0) {
        newest = changes.at(-1)!.seq;
        sentAt = now;
        batches.offer(changes);
      }
      if (changes.length < CHANGES_PAGE) break;
    }
    seenRevision = revision;
    await forgetOld();
  };

  return {
    get newest() {
      return newest;
    },
    read,
    reread() {
      seenRevision = undefined;
    },
  };
}
