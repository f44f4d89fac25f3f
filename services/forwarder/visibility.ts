/**
 * The visibility timeouts the forwarder works with: the one asked for on receive, and
 * the one the heartbeat extends by.
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import { causeText } from "./cause_text.ts";
import type { Queue } from "./sqs_queue.ts";

/** Visibility timeout assumed when the queue cannot tell its own (the SQS default). */
export const FALLBACK_VISIBILITY_SECONDS = 30;
/**
 * Least extension, in seconds. Each extension is sent two thirds of the way through
 * the visibility it extends, so it has a third of it to land: for 30 s (the SQS
 * default) 10 s, twice the 5 s time limit of a queue call. Extending by less (by 0 s,
 * on a queue whose own timeout is 0, the message would show at once) risks the
 * message showing again while its post runs, and being posted twice.
 */
export const MIN_EXTENSION_SECONDS = 30;
/** How long the fallback serves before the queue is asked again. */
const VISIBILITY_RETRY_MS = 60_000;

/** The visibility timeouts in force for the messages of one receive. */
export interface Visibility {
  /** `VisibilityTimeout` asked for on receive, in seconds; the queue's own when unset. */
  readonly receive?: number;
  /** How long a received message stays invisible, in seconds. */
  readonly seconds: number;
  /** What each extension asks for, in seconds: at least {@linkcode MIN_EXTENSION_SECONDS}. */
  readonly extendBy: number;
}

/** Visibility timeouts for messages received with `seconds` of visibility. */
function visibility(seconds: number, receive?: number): Visibility {
  return {
    ...(receive === undefined ? {} : { receive }),
    seconds,
    extendBy: Math.max(seconds, MIN_EXTENSION_SECONDS),
  };
}

/**
 * Returns a function resolving to the {@linkcode Visibility} in force: from
 * `configured` when set (QUEUE_VISIBILITY_TIMEOUT, asked for on receive), otherwise
 * from the queue's own, asked once and shared by every receive. The heartbeat never
 * extends by less than {@linkcode MIN_EXTENSION_SECONDS}; a queue whose own timeout is
 * 0 (a message received is visible again at once) gets that floor asked for on
 * receive, with one WARNING saying what to set.
 * After a failed ask (logged once, at WARNING) the fallback of 30 s is asked for on
 * receive, so that what the heartbeat assumes holds, for a minute before the queue is
 * asked again.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import type { Queue } from "./sqs_queue.ts";
 *
 * declare const queue: Queue;
 * const visibilityOf = createVisibilityLookup({ queue, log: createLog("forwarder") });
 * const { receive } = await visibilityOf(); // the queue's own, asked once for all
 * ```
 */
export function createVisibilityLookup(options: {
  queue: Queue;
  log: Log;
  configured?: number;
  /** The forwarder's stop: abandons an ask under way, without a WARNING. */
  signal?: AbortSignal;
}): () => Promise<Visibility> {
  const { queue, log, configured } = options;
  const floor = MIN_EXTENSION_SECONDS;
  let current: Promise<Visibility> | undefined = configured === undefined
    ? undefined
    : Promise.resolve(visibility(configured, configured));
  let failedAt: number | undefined;
  let warned = false;

  const fromQueue = (seconds: number): Visibility => {
    if (seconds >= 1) return visibility(seconds);
    log.warn(
      `The queue's visibility timeout is ${seconds} s: a received message would be visible again at once and posted again; asking for ${floor} s on each receive instead (set QUEUE_VISIBILITY_TIMEOUT, or the queue's visibility timeout)`,
    );
    return visibility(floor, floor);
  };

  return () => {
    if (failedAt !== undefined && Date.now() - failedAt > VISIBILITY_RETRY_MS) {
      current = undefined;
      failedAt = undefined;
    }
    current ??= queue.visibilityTimeout(options.signal).then(fromQueue, (
      error,
    ) => {
      failedAt = Date.now();
      if (!warned && !options.signal?.aborted) {
        warned = true;
        log.warn(
          `Cannot read the queue's visibility timeout: ${
            causeText(error)
          }; assuming ${FALLBACK_VISIBILITY_SECONDS} s and asking for it on each receive until the queue tells its own (if it refuses GetQueueAttributes, set QUEUE_VISIBILITY_TIMEOUT)`,
        );
      }
      return visibility(
        FALLBACK_VISIBILITY_SECONDS,
        FALLBACK_VISIBILITY_SECONDS,
      );
    });
    return current;
  };
}
