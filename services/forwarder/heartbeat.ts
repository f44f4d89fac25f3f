/**
 * Keeps the messages of a batch invisible while their posts are still running.
 *
 * @module
 */
import { errorText, type Log } from "../../lib/log.ts";
import type { Queue, QueueMessage } from "./sqs_queue.ts";

/** A running heartbeat. */
export interface Heartbeat {
  /** Marks a message as handled: it is no longer extended. */
  done(message: QueueMessage): void;
  /** Stops extending; resolves once an extension under way has ended. */
  stop(): Promise<void>;
}

/**
 * Every two thirds of `visibilitySeconds` after the receive, extends the visibility of
 * the messages still being handled by `visibilitySeconds` from then, so a slow endpoint
 * does not make the queue deliver them a second time.
 *
 * @example
 * ```ts
 * const heartbeat = startHeartbeat({ queue, log, messages, visibilitySeconds: 30 });
 * // ... post, then heartbeat.done(message) for each; finally:
 * heartbeat.stop();
 * ```
 */
export function startHeartbeat(options: {
  queue: Queue;
  log: Log;
  messages: readonly QueueMessage[];
  visibilitySeconds: number;
}): Heartbeat {
  const { queue, log, visibilitySeconds } = options;
  const pending = new Set(options.messages);
  const everyMs = Math.max(200, (visibilitySeconds * 1000 * 2) / 3);
  let extending: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    if (pending.size === 0) return;
    const messages = [...pending];
    extending = queue.extendVisibility(messages, visibilitySeconds).then(
      () =>
        log.debug(
          `Extended the visibility of ${messages.length} messages by ${visibilitySeconds} s`,
        ),
      (error) =>
        log.warn(
          `Cannot extend the visibility of ${messages.length} messages: ${
            errorText(error)
          }`,
        ),
    );
  }, everyMs);
  return {
    done: (message) => pending.delete(message),
    stop() {
      clearInterval(timer);
      return extending;
    },
  };
}
