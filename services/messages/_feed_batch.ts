/**
 * The batches of the change feed: the changes read from the store at once, made
 * into the events of each distinct filter once for every subscriber with that
 * filter, and what of a batch a subscriber is sent after the changes it has seen.
 *
 * @module
 */
import { concatBytes } from "../../lib/concat_bytes.ts";
import type { MessageFilter } from "./list_query.ts";
import type { MessageChange } from "./message_store.ts";
import { matchesFilter } from "./_filter_match.ts";

const encoder = new TextEncoder();

/** One event of a batch, as sent. */
export interface SentEvent {
  /** The sequence number of its change (its `id:`). */
  seq: number;
  /** The event's text. */
  bytes: Uint8Array;
}

/** A batch of changes read by the feed, as the events of one filter. */
export interface FilteredBatch {
  /** The events of the changes matching the filter, by ascending sequence. */
  events: SentEvent[];
  /**
   * Every event's text, end to end (made once, on first use): what a subscriber
   * that has seen none of them is sent, in one write.
   */
  bytes(): Uint8Array;
  /** The newest change of the batch, matching or not. */
  last: number;
  /** A `reset`: sent whatever the subscriber has seen, which it starts over from. */
  reset?: boolean;
}

/** What batches are offered to: one subscriber's stream. */
export interface BatchMember {
  /** Takes a batch of changes, as the events of its filter. */
  offer(batch: FilteredBatch): void;
}

/** The members of a feed, grouped by filter: a group's events are made once for all. */
export interface FeedBatches<M extends BatchMember> {
  /** Every member, in the order they joined. */
  readonly members: ReadonlySet<M>;
  /**
   * Adds `member` to the group of `filter` (filters with the same JSON text share
   * one); returns the function that removes it.
   */
  join(filter: MessageFilter, member: M): () => void;
  /**
   * Offers `changes` (at least one, by ascending sequence) to every member, as the
   * events of its group's filter: `created`, `updated`, or `deleted` for a record
   * that stops matching.
   */
  offer(changes: readonly MessageChange[]): void;
  /** Offers every member a `reset` event with id `seq`, whatever it has seen. */
  offerReset(seq: number): void;
}

/**
 * Returns an empty {@linkcode FeedBatches}: each change offered is encoded once
 * for every filter, and each group's batch (the same object, the same bytes) is
 * offered to every member of the group.
 *
 * @example
 * ```ts
 * import type { FilteredBatch } from "./_feed_batch.ts";
 *
 * const got: FilteredBatch[] = [];
 * const batches = createFeedBatches();
 * const leave = batches.join({ author: ["bob"] }, { offer: (b) => got.push(b) });
 * batches.offer([
 *   { seq: 7, kind: "created", record: { id: 1, author: "bob", message: "hi" } },
 * ]);
 * got[0]?.last; // 7
 * leave();
 * ```
 */
export function createFeedBatches<
  M extends BatchMember = BatchMember,
>(): FeedBatches<M> {
  const members = new Set<M>();
  // Members by filter (its JSON text).
  const groups = new Map<string, Group<M>>();
  return {
    members,
    join(filter, member) {
      members.add(member);
      const key = JSON.stringify(filter);
      let group = groups.get(key);
      if (group === undefined) {
        group = { filter, members: new Set() };
        groups.set(key, group);
      }
      group.members.add(member);
      return () => {
        members.delete(member);
        group.members.delete(member);
        if (group.members.size === 0 && groups.get(key) === group) {
          groups.delete(key);
        }
      };
    },
    offer(changes) {
      const last = changes.at(-1)!.seq;
      const texts = changes.map(eventTexts);
      for (const { filter, members } of groups.values()) {
        const events: SentEvent[] = [];
        for (const text of texts) {
          const bytes = eventFor(filter, text);
          if (bytes) events.push({ seq: text.change.seq, bytes });
        }
        let joined: Uint8Array | undefined;
        const batch: FilteredBatch = {
          events,
          last,
          bytes: () =>
            joined ??= events.length === 1
              ? events[0]!.bytes
              : concatBytes(events.map((event) => event.bytes)),
        };
        for (const member of members) member.offer(batch);
      }
    },
    offerReset(seq) {
      const bytes = encoder.encode(`event: reset\nid: ${seq}\ndata: {}\n\n`);
      const batch: FilteredBatch = {
        events: [{ seq, bytes }],
        bytes: () => bytes,
        last: seq,
        reset: true,
      };
      for (const member of members) member.offer(batch);
    },
  };
}

/**
 * What a subscriber that has handled the changes up to `seen` is sent of `batch`:
 * all of it when none of its events were seen (the bytes shared with the other
 * members), only the newer events when some were, nothing when all were; all of a
 * `reset`, whatever was seen.
 *
 * @example
 * ```ts
 * const bytes = new TextEncoder().encode("event: reset\nid: 3\ndata: {}\n\n");
 * const reset = { events: [{ seq: 3, bytes }], bytes: () => bytes, last: 3, reset: true };
 * unseenBytes(reset, 9) === bytes; // true
 * ```
 */
export function unseenBytes(
  batch: FilteredBatch,
  seen: number,
): Uint8Array | undefined {
  if (batch.reset) return batch.bytes();
  if (batch.last <= seen) return undefined;
  const { events } = batch;
  if (events.length > 0 && events[0]!.seq > seen) return batch.bytes();
  const fresh = events.filter((event) => event.seq > seen);
  return fresh.length > 0
    ? concatBytes(fresh.map((event) => event.bytes))
    : undefined;
}

/**
 * The events a subscriber with `filter` gets for `changes`, end to end, or
 * `undefined` when none matches: what a resumed stream is sent of the changes kept.
 *
 * @example
 * ```ts
 * const bytes = filteredBytes({}, [
 *   { seq: 2, kind: "deleted", record: { id: 1, author: "bob", message: "hi" } },
 * ]);
 * new TextDecoder().decode(bytes); // 'event: deleted\nid: 2\ndata: {"id":1}\n\n'
 * ```
 */
export function filteredBytes(
  filter: MessageFilter,
  changes: readonly MessageChange[],
): Uint8Array | undefined {
  const texts: Uint8Array[] = [];
  for (const change of changes) {
    const bytes = eventFor(filter, eventTexts(change));
    if (bytes) texts.push(bytes);
  }
  return texts.length > 0 ? concatBytes(texts) : undefined;
}

/** The members with one filter: their events are made once for them all. */
interface Group<M> {
  filter: MessageFilter;
  members: Set<M>;
}

/** The event texts of one change, made once for every subscriber. */
interface EventTexts {
  change: MessageChange;
  /** `created` or `updated` with the record. */
  record(): Uint8Array;
  /** `deleted` with the id. */
  deleted(): Uint8Array;
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
  events: EventTexts,
): Uint8Array | undefined {
  const { change } = events;
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
