/**
 * The forwarder loop: receive a batch, post every body concurrently (the messages of
 * one FIFO message group one after another), delete the posted messages with one batch
 * delete (a FIFO group's as soon as its chain ends), again, until stopped.
 *
 * @module
 */
import { backoffDelay, type BackoffOptions, sleep } from "../../lib/backoff.ts";
import { raceSignal } from "../../lib/deadline.ts";
import type { Log } from "../../lib/log.ts";
import { causeText } from "./cause_text.ts";
import { createDelayRedelivery } from "./delay_redelivery.ts";
import { createDeleteGatherer } from "./delete_gatherer.ts";
import { deletedReplyWarning } from "./deleted_reply_warning.ts";
import { groupChains } from "./group_chains.ts";
import { startHeartbeat } from "./heartbeat.ts";
import { createLimiter } from "./limiter.ts";
import { createMetrics, type ForwarderMetrics } from "./metrics.ts";
import { createSlots } from "./slots.ts";
import type { BackoffDecision, RetryCause } from "./backoff_visibility.ts";
import type { ExtraHeaders, Post } from "./poster.ts";
import type { Queue, QueueMessage } from "./sqs_queue.ts";
import { createVisibilityLookup, type Visibility } from "./visibility.ts";

/** Tuning of {@linkcode createForwarder}. */
export interface ForwarderTuning {
  /**
   * Receive calls in flight at once. There is room in hand for a batch per receiver,
   * messages waiting for a post slot included. @default 1
   */
  receivers?: number;
  /**
   * Most posts in flight at once, over all batches; also how many messages may be in
   * hand (at least `receivers` batches), so the next receive overlaps the posts.
   * @default 10
   */
  concurrency?: number;
  /** Most messages one receive call returns (QUEUE_MAX_NUMBER_OF_MESSAGES). @default 10 */
  batchSize?: number;
  /** Replies with these statuses leave the message in the queue. @default none */
  retryStatuses?: ReadonlySet<number>;
  /**
   * Visibility timeout asked for on receive, in seconds; the queue's when unset (see
   * `visibility.ts` for the floor of the extensions).
   */
  visibilityTimeout?: number;
  /** Longest wait at stop for the batches in hand. @default 25000 */
  shutdownTimeoutMs?: number;
  /** Backoff after a failed receive. @default 1 s to 60 s */
  backoff?: BackoffOptions;
  /**
   * Pause after a receive that returned nothing. Long polling waits on the server
   * instead; with short polling (wait time 0) this keeps an empty queue from being
   * asked hundreds of times a second (each call billed on AWS). @default 0
   */
  emptyReceivePauseMs?: number;
}

/** Options of {@linkcode createForwarder}. */
export interface ForwarderOptions {
  queue: Queue;
  post: Post;
  log: Log;
  metrics?: ForwarderMetrics;
  settings?: ForwarderTuning;
  /**
   * Headers added to a message's post (signature, sqsd headers); none when unset:
   * the post then carries `Authorization` and `Content-Type` alone.
   */
  headers?: (message: QueueMessage) => ExtraHeaders;
  /**
   * The visibility timeout of a message left for redelivery (see
   * `backoff_visibility.ts`); `undefined` keeps the one it has. Unset: never changed.
   */
  retryDelay?: (cause: RetryCause) => BackoffDecision | undefined;
  /**
   * A clock in milliseconds, for the 12 hours SQS lets a message stay in flight after
   * its receive (a backoff past them is refused). @default performance.now
   */
  now?: () => number;
}

/**
 * What became of one post: deleted, left for redelivery (with what the delay is
 * computed from), cut off by the stop, or (`undefined`) not posted at all.
 */
type Outcome = "delete" | "abandoned" | RetryCause | undefined;

/** A forwarder. */
export interface Forwarder {
  /** Runs the loop; resolves after {@linkcode Forwarder.stop} once all is settled. */
  run(): Promise<void>;
  /** Stops receiving, finishes the batches in hand (bounded), waits for the deletes. */
  stop(): Promise<void>;
}

/**
 * How long the deletes of FIFO groups whose posts end close together wait for each
 * other, to go out in one call.
 */
const GROUP_DELETE_WINDOW_MS = 50;
/** Most entries of one SQS batch call. */
const SQS_BATCH_MAX = 10;

/**
 * Returns a {@linkcode Forwarder}. Per message: the body is logged at INFO and posted;
 * any HTTP status outside `retryStatuses` gets the message deleted (one that is not
 * 2xx with a WARNING naming the message and the status); an error (refused, DNS,
 * time-out) is logged at ERROR and leaves it in the queue; a message left in the
 * queue is no longer extended, and `retryDelay` may set when it comes back. Each post
 * carries the message's `headers`, when given. A failed receive is
 * logged at ERROR and retried with capped, jittered backoff; the loop never ends on its
 * own.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 *
 * declare const queue: ForwarderOptions["queue"], post: ForwarderOptions["post"];
 * const forwarder = createForwarder({
 *   queue,
 *   post,
 *   log: createLog("forwarder"),
 *   settings: { concurrency: 10 },
 * });
 * const running = forwarder.run();
 * // on SIGTERM:
 * await forwarder.stop();
 * ```
 */
export function createForwarder(options: ForwarderOptions): Forwarder {
  const { queue, post, log, headers, retryDelay } = options;
  const now = options.now ?? (() => performance.now());
  const metrics = options.metrics ?? createMetrics();
  const tuning = options.settings ?? {};
  const retryStatuses = tuning.retryStatuses ?? new Set<number>();
  const concurrency = tuning.concurrency ?? 10;
  const batchSize = tuning.batchSize ?? 10;
  const receivers = tuning.receivers ?? 1;
  const limiter = createLimiter(concurrency);
  // Room for a whole batch per receiver, so each keeps a receive in flight; the limiter
  // still caps the posts, and the heartbeat keeps the messages waiting for it hidden.
  const inHand = createSlots(Math.max(concurrency, receivers * batchSize));
  const batches = new Set<Promise<void>>();
  const stopping = new AbortController();
  const aborting = new AbortController();
  const deletes = new Set<Promise<void>>();
  const visibilityOf = createVisibilityLookup({
    queue,
    log,
    configured: tuning.visibilityTimeout,
    signal: stopping.signal,
  });
  let running: Promise<void> | undefined;
  let unposted = 0; // messages let go unposted once the stop gave up on the posts
  const delayRedelivery = retryDelay === undefined
    ? undefined
    : createDelayRedelivery({ queue, log, metrics, retryDelay, now });

  /** The receive count SQS gave, when the receive asked for it. */
  function receiveCount(message: QueueMessage): number | undefined {
    const count = Number(message.systemAttributes?.ApproximateReceiveCount);
    return Number.isInteger(count) && count > 0 ? count : undefined;
  }

  /** Posts one message and says what to do with it. */
  async function forward(message: QueueMessage): Promise<Outcome> {
    log.info(message.body);
    const started = performance.now();
    const retry = (retryAfter?: string): RetryCause => ({
      receiveCount: receiveCount(message),
      ...(retryAfter === undefined ? {} : { retryAfter }),
    });
    try {
      const reply = await post(
        message.body,
        aborting.signal,
        headers?.(message),
      );
      const { status } = reply;
      metrics.observePost(performance.now() - started);
      if (retryStatuses.has(status)) {
        metrics.count("retried");
        log.warn(
          `Endpoint returned ${status} for message ${message.id}: left in the queue for redelivery`,
        );
        return retry(reply.retryAfter);
      }
      metrics.count("posted");
      // Any status deletes the message (docs/decisions.md): say so when it is not a success, or a
      // wrong token (401) or a moved endpoint drains the queue unnoticed.
      if (status < 200 || status > 299) {
        log.warn(deletedReplyWarning(message.id, reply));
      }
      return "delete";
    } catch (error) {
      if (aborting.signal.aborted) {
        // Cut off by the stop's limit, not by the endpoint.
        log.warn(
          `Post of message ${message.id} abandoned at the stop; left in the queue`,
        );
        return "abandoned";
      }
      metrics.count("failed");
      log.error(
        `Cannot post message ${message.id}: ${
          causeText(error)
        }; left in the queue`,
      );
      return retry();
    }
  }

  async function remove(messages: QueueMessage[]): Promise<void> {
    try {
      const failed = await queue.deleteBatch(messages);
      metrics.count("deleted", messages.length - failed.length);
      for (const { message, reason } of failed) {
        log.error(
          `Cannot delete message ${message.id}: ${reason}; it will be delivered again`,
        );
      }
    } catch (error) {
      log.error(
        `Cannot delete ${messages.length} message${
          messages.length === 1 ? "" : "s"
        }: ${causeText(error)}; ${
          messages.length === 1 ? "it" : "they"
        } will be delivered again`,
      );
    }
  }

  /** Tracks `work` in `set` until it settles. */
  function track(set: Set<Promise<void>>, work: Promise<void>): void {
    const tracked = work.finally(() => set.delete(tracked));
    set.add(tracked);
  }

  async function handle(
    messages: QueueMessage[],
    visibility: Visibility,
    receivedAt: number,
  ): Promise<void> {
    metrics.count("received", messages.length);
    const heartbeat = startHeartbeat({
      queue,
      log,
      messages,
      visibilitySeconds: visibility.seconds,
      extendBySeconds: visibility.extendBy,
    });
    const posted: QueueMessage[] = []; // loose messages: one batch delete at the end
    // SQS hands out a group's next messages only once these are deleted: a group's
    // are deleted when its chain ends, so a slow group does not hold the others back.
    const groupDeletes = createDeleteGatherer({
      windowMs: GROUP_DELETE_WINDOW_MS,
      maxBatch: SQS_BATCH_MAX,
      send: (done) =>
        track(deletes, heartbeat.release(done).then(() => remove(done))),
    });
    // A group's messages one after another; the other groups and the loose messages
    // meanwhile.
    await Promise.all(
      groupChains(messages).map(async (chain) => {
        const done: QueueMessage[] = [];
        for (const message of chain) {
          // Once the stop has given up on the posts, the rest stays queued unposted.
          const outcome = await limiter.run(() =>
            aborting.signal.aborted
              ? Promise.resolve(undefined)
              : forward(message)
          );
          inHand.give(1);
          // A posted message stays hidden until its delete; one left in the queue is
          // let go, to come back after its visibility timeout or its backoff.
          if (outcome === "delete") done.push(message);
          else if (outcome === undefined) {
            heartbeat.done(message);
            unposted++;
          } else if (outcome === "abandoned" || !delayRedelivery) {
            heartbeat.done(message);
          } else {
            const released = heartbeat.release([message]);
            track(
              deletes,
              delayRedelivery(message, outcome, released, receivedAt),
            );
          }
        }
        if (chain[0]?.groupId === undefined) posted.push(...done);
        else groupDeletes.add(done);
      }),
    );
    groupDeletes.flush();
    await heartbeat.stop();
    if (posted.length > 0) track(deletes, remove(posted));
  }

  // One backoff for all receivers: the first failure of a round logs and sets the
  // pause, the receivers failing meanwhile wait it out with it.
  let failures = 0;
  let backingOff: Promise<void> | undefined;

  async function receiveLoop(): Promise<void> {
    // A receive reserves room for a whole batch first: nothing waits unposted.
    while (await inHand.take(batchSize, stopping.signal)) {
      let messages: QueueMessage[];
      let visibility: Visibility;
      let receivedAt: number;
      try {
        // Known before the first receive: it may have to ask for a visibility timeout.
        visibility = await raceSignal(visibilityOf(), stopping.signal);
        receivedAt = now();
        messages = await queue.receive(stopping.signal, visibility.receive);
        failures = 0;
        metrics.receive();
      } catch (error) {
        inHand.give(batchSize);
        if (stopping.signal.aborted) break;
        metrics.receive(causeText(error));
        if (!backingOff) {
          const delay = backoffDelay(failures++, tuning.backoff);
          log.error(
            `Cannot receive from the queue: ${
              causeText(error)
            }; retrying in ${delay} ms`,
          );
          backingOff = sleep(delay, stopping.signal).finally(() =>
            backingOff = undefined
          );
        }
        await backingOff;
        continue;
      }
      inHand.give(batchSize - messages.length);
      if (messages.length > 0) {
        track(batches, handle(messages, visibility, receivedAt));
      } else if (tuning.emptyReceivePauseMs) {
        await sleep(tuning.emptyReceivePauseMs, stopping.signal);
      }
    }
  }

  return {
    run() {
      running ??= (async () => {
        const loops = Array.from({ length: receivers }, () => receiveLoop());
        await Promise.all(loops);
        await Promise.all(batches);
        await Promise.all(deletes);
      })();
      return running;
    },
    async stop() {
      stopping.abort();
      if (!running) return;
      const limitMs = tuning.shutdownTimeoutMs ?? 25_000;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const expired = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), limitMs);
      });
      const late = await Promise.race([running.then(() => false), expired]);
      clearTimeout(timer);
      if (late) {
        log.warn(
          `Posts still running after ${limitMs} ms: abandoning them (their messages stay in the queue)`,
        );
        aborting.abort();
        await running;
        if (unposted > 0) {
          log.warn(
            `${unposted} message${
              unposted === 1 ? "" : "s"
            } not posted before the stop: left in the queue`,
          );
        }
      }
    },
  };
}
