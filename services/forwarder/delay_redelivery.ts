/**
 * Hides a message left for redelivery until its backoff, or the endpoint's
 * `Retry-After`, is over (`ChangeMessageVisibility`).
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import {
  type BackoffDecision,
  MAX_VISIBILITY_MS,
  type RetryCause,
} from "./backoff_visibility.ts";
import { causeText } from "./cause_text.ts";
import type { ForwarderMetrics } from "./metrics.ts";
import type { Queue, QueueMessage } from "./sqs_queue.ts";

/** Options of {@linkcode createDelayRedelivery}. */
export interface DelayRedeliveryOptions {
  queue: Queue;
  log: Log;
  metrics: ForwarderMetrics;
  /** The delay of a message (see `backoff_visibility.ts`); `undefined`: none. */
  retryDelay: (cause: RetryCause) => BackoffDecision | undefined;
  /** The clock the receive times were read on, in milliseconds. */
  now: () => number;
}

/**
 * Delays the redelivery of one message: `cause` says what the delay is computed
 * from, `released` resolves once no visibility extension names the message any more
 * (one landing after the change would undo it), `receivedAt` is when its receive
 * call was sent.
 */
export type DelayRedelivery = (
  message: QueueMessage,
  cause: RetryCause,
  released: Promise<void>,
  receivedAt: number,
) => Promise<void>;

/**
 * Returns a {@linkcode DelayRedelivery}: it sets the message's visibility to the
 * delay `retryDelay` gives, within the 12 h SQS lets a message stay in flight after
 * its receive, counts a backoff and logs it at INFO; a refused change is logged at
 * WARNING (the message then comes back after its visibility timeout). Never rejects.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import type { Heartbeat } from "./heartbeat.ts";
 * import { createMetrics } from "./metrics.ts";
 * import type { QueueMessage } from "./sqs_queue.ts";
 *
 * declare const queue: DelayRedeliveryOptions["queue"];
 * declare const retryDelay: DelayRedeliveryOptions["retryDelay"];
 * declare const message: QueueMessage, heartbeat: Heartbeat, receivedAt: number;
 * const delayRedelivery = createDelayRedelivery({
 *   queue,
 *   log: createLog("forwarder"),
 *   metrics: createMetrics(),
 *   retryDelay,
 *   now: () => performance.now(),
 * });
 * await delayRedelivery(
 *   message,
 *   { receiveCount: 3 },
 *   heartbeat.release([message]),
 *   receivedAt,
 * );
 * ```
 */
export function createDelayRedelivery(
  options: DelayRedeliveryOptions,
): DelayRedelivery {
  const { queue, log, metrics, retryDelay, now } = options;
  return async (message, cause, released, receivedAt) => {
    const decision = retryDelay(cause);
    await released;
    if (decision === undefined) return;
    // SQS refuses a visibility that keeps a message in flight more than 12 h after
    // its receive (the message would then come back after its visibility timeout):
    // what is left of them is the longest it can stay hidden.
    const left = Math.floor((MAX_VISIBILITY_MS - (now() - receivedAt)) / 1000);
    const seconds = Math.max(0, Math.min(decision.seconds, left));
    try {
      await queue.setVisibility(message, seconds);
      metrics.count("backoffs");
      log.info(
        `Message ${message.id} comes back in ${seconds} s (${
          decision.fromRetryAfter
            ? "the endpoint's Retry-After"
            : `backoff after receive ${cause.receiveCount ?? 1}`
        })`,
      );
    } catch (error) {
      log.warn(
        `Cannot delay the redelivery of message ${message.id}: ${
          causeText(error)
        }; it comes back after its visibility timeout`,
      );
    }
  };
}
