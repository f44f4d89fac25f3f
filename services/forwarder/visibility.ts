/**
 * The queue's visibility timeout, which the heartbeat extends by.
 *
 * @module
 */
import { errorText, type Log } from "../../lib/log.ts";
import type { Queue } from "./sqs_queue.ts";

/** Visibility timeout assumed when the queue cannot tell its own (the SQS default). */
export const FALLBACK_VISIBILITY_SECONDS = 30;
/** How long the fallback serves before the queue is asked again. */
const VISIBILITY_RETRY_MS = 60_000;

/**
 * Returns a function resolving to the visibility timeout in seconds: `configured`
 * when set (QUEUE_VISIBILITY_TIMEOUT), otherwise the queue's own, asked once and
 * shared by every batch. After a failed ask (logged once, at WARNING) the fallback
 * of 30 s serves for a minute before the queue is asked again.
 *
 * @example
 * ```ts
 * const visibilitySeconds = createVisibilityLookup({ queue, log });
 * await visibilitySeconds(); // the queue's own, asked once for every batch
 * ```
 */
export function createVisibilityLookup(options: {
  queue: Queue;
  log: Log;
  configured?: number;
}): () => Promise<number> {
  const { queue, log } = options;
  let visibility: Promise<number> | undefined = options.configured === undefined
    ? undefined
    : Promise.resolve(options.configured);
  let failedAt: number | undefined;
  let warned = false;
  return () => {
    if (failedAt !== undefined && Date.now() - failedAt > VISIBILITY_RETRY_MS) {
      visibility = undefined;
      failedAt = undefined;
    }
    visibility ??= queue.visibilityTimeout().catch((error) => {
      failedAt = Date.now();
      if (!warned) {
        warned = true;
        log.warn(
          `Cannot read the queue's visibility timeout: ${
            errorText(error)
          }; assuming ${FALLBACK_VISIBILITY_SECONDS} s (set QUEUE_VISIBILITY_TIMEOUT)`,
        );
      }
      return FALLBACK_VISIBILITY_SECONDS;
    });
    return visibility;
  };
}
