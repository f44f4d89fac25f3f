/**
 * Keeps the messages of a batch invisible while their posts are still running.
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import { causeText } from "./cause_text.ts";
import type { Queue, QueueMessage } from "./sqs_queue.ts";

/** Error codes of an entry the queue can never extend again. */
const GONE = /MessageNotInflight|ReceiptHandleIsInvalid/;

/** A running heartbeat. */
export interface Heartbeat {
  /** Marks a message as handled: it is no longer extended. */
  done(message: QueueMessage): void;
  /**
   * Marks `messages` as handled and resolves once no extension naming them is under
   * way, so a delete sent then does not cross one (the queue would refuse it).
   */
  release(messages: readonly QueueMessage[]): Promise<void>;
  /** Stops extending; resolves once an extension under way has ended. */
  stop(): Promise<void>;
}

/**
 * Two thirds of `visibilitySeconds` after the receive, and then every two thirds of
 * `extendBySeconds`, extends the visibility of the messages still being handled by
 * `extendBySeconds` from then, so a slow endpoint does not make the queue deliver them
 * a second time.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import type { Queue, QueueMessage } from "./sqs_queue.ts";
 *
 * declare const queue: Queue, messages: QueueMessage[];
 * const heartbeat = startHeartbeat({
 *   queue,
 *   log: createLog("forwarder"),
 *   messages,
 *   visibilitySeconds: 30,
 * });
 * // ... post, then heartbeat.done(message) for each left in the queue, and
 * // await heartbeat.release(posted) before deleting posted ones early; finally:
 * await heartbeat.stop();
 * ```
 */
export function startHeartbeat(options: {
  queue: Queue;
  log: Log;
  messages: readonly QueueMessage[];
  /** How long the received messages stay invisible. */
  visibilitySeconds: number;
  /** What each extension asks for. @default visibilitySeconds */
  extendBySeconds?: number;
}): Heartbeat {
  const { queue, log, visibilitySeconds } = options;
  const extendBy = options.extendBySeconds ?? visibilitySeconds;
  const pending = new Set(options.messages);
  const twoThirdsMs = (seconds: number) => Math.max(200, (seconds * 2000) / 3);
  const everyMs = twoThirdsMs(extendBy);
  let extending: Promise<void> | undefined;
  const tick = () => {
    timer = setTimeout(tick, everyMs);
    // One extension at a time: a tick while one is under way is skipped, so none
    // can land after `stop()` has resolved.
    if (pending.size === 0 || extending) return;
    const messages = [...pending];
    const count = `${messages.length} message${
      messages.length === 1 ? "" : "s"
    }`;
    extending = queue.extendVisibility(messages, extendBy).then(
      (failed) => {
        log.debug(
          `Extended the visibility of ${count} by ${extendBy} s${
            failed.length > 0 ? `, ${failed.length} refused` : ""
          }`,
        );
        for (const { message, reason, code } of failed) {
          // The message was deleted or is no longer in flight: asking again would only
          // repeat the refusal. Other failures (the queue's own) are asked again.
          if (GONE.test(code ?? "")) pending.delete(message);
          log.warn(
            `Cannot extend the visibility of message ${message.id}: ${reason}; it may be delivered again`,
          );
        }
      },
      (error) =>
        log.warn(
          `Cannot extend the visibility of ${count}: ${causeText(error)}`,
        ),
    ).finally(() => extending = undefined);
  };
  let timer = setTimeout(tick, twoThirdsMs(visibilitySeconds));
  return {
    done: (message) => pending.delete(message),
    async release(messages) {
      for (const message of messages) pending.delete(message);
      await extending;
    },
    async stop() {
      clearTimeout(timer);
      await extending;
    },
  };
}
