/**
 * Gathers messages to delete that become ready one group at a time into few batch
 * deletes.
 *
 * @module
 */
import type { QueueMessage } from "./sqs_queue.ts";

/** Messages ready to delete, gathered; see {@linkcode createDeleteGatherer}. */
export interface DeleteGatherer {
  /** Adds messages ready to delete; they go out within the window. */
  add(messages: readonly QueueMessage[]): void;
  /** Sends what is gathered now. */
  flush(): void;
}

/**
 * Returns a gatherer that hands what was added to `send` at most `windowMs` after the
 * first addition (or at {@linkcode DeleteGatherer.flush}), up to `maxBatch` at a time.
 * The messages of FIFO groups whose posts end close together then cost one call, while
 * a slow group does not hold the others back.
 *
 * @example
 * ```ts
 * import type { QueueMessage } from "./sqs_queue.ts";
 *
 * declare const groupA: QueueMessage[], groupB: QueueMessage[];
 * declare function remove(messages: QueueMessage[]): void;
 * const gatherer = createDeleteGatherer({ windowMs: 50, maxBatch: 10, send: remove });
 * gatherer.add(groupA); // sent with groupB in one call
 * gatherer.add(groupB);
 * ```
 */
export function createDeleteGatherer(options: {
  windowMs: number;
  maxBatch: number;
  send: (messages: QueueMessage[]) => void;
}): DeleteGatherer {
  let gathered: QueueMessage[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const ready = gathered;
    gathered = [];
    for (let i = 0; i < ready.length; i += options.maxBatch) {
      options.send(ready.slice(i, i + options.maxBatch));
    }
  };
  return {
    add(messages) {
      if (messages.length === 0) return;
      gathered.push(...messages);
      timer ??= setTimeout(flush, options.windowMs);
    },
    flush,
  };
}
