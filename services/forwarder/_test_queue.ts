/**
 * An in-memory queue for the forwarder's unit tests: it hands out scripted batches,
 * then holds each receive call until it is aborted (a long poll on an empty queue),
 * and records every call.
 *
 * @module
 */
import type { Queue, QueueMessage } from "./sqs_queue.ts";

/** A fake queue and what was done to it. */
export interface FakeQueue extends Queue {
  /** Receive calls made so far. */
  readonly receives: number;
  /** Receive calls in flight now. */
  readonly receiving: number;
  /** The most receive calls in flight at once. */
  readonly peakReceiving: number;
  /** Ids of the messages deleted, in delete order. */
  readonly deleted: string[];
  /** Ids of the messages of each batch delete, in call order. */
  readonly deleteCalls: string[][];
  /** Ids of the messages of each visibility extension, in call order. */
  readonly extended: string[][];
  /** Seconds each visibility extension asked for, in call order. */
  readonly extendedBy: number[];
  /** The visibility timeout each receive call asked for, in call order. */
  readonly receiveVisibility: (number | undefined)[];
  /** Each visibility set on one message (a backoff): its id and the seconds. */
  readonly visibilitySet: [string, number][];
}

/** Returns `count` messages `${prefix}0`..., of FIFO group `groupId` when given. */
export function messages(
  prefix: string,
  count: number,
  groupId?: string,
): QueueMessage[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${prefix}${i}`,
    body: `${prefix}${i}`,
    receiptHandle: `r-${prefix}${i}`,
    ...(groupId === undefined ? {} : { groupId }),
  }));
}

/**
 * Returns a {@linkcode FakeQueue} responding to the first receive calls with `batches`, in
 * order; its visibility timeout is `visibilitySeconds` (default 30).
 */
export function createFakeQueue(
  batches: QueueMessage[][],
  visibilitySeconds = 30,
): FakeQueue {
  const script = [...batches];
  let receives = 0;
  let receiving = 0;
  let peakReceiving = 0;
  const deleted: string[] = [];
  const deleteCalls: string[][] = [];
  const extended: string[][] = [];
  const extendedBy: number[] = [];
  const receiveVisibility: (number | undefined)[] = [];
  const visibilitySet: [string, number][] = [];
  return {
    get receives() {
      return receives;
    },
    get receiving() {
      return receiving;
    },
    get peakReceiving() {
      return peakReceiving;
    },
    deleted,
    deleteCalls,
    extended,
    extendedBy,
    receiveVisibility,
    visibilitySet,
    visibilityTimeout: () => Promise.resolve(visibilitySeconds),
    async receive(signal, visibilityTimeout) {
      receives++;
      receiveVisibility.push(visibilityTimeout);
      receiving++;
      peakReceiving = Math.max(peakReceiving, receiving);
      try {
        const batch = script.shift();
        if (batch) {
          await Promise.resolve();
          return batch;
        }
        await new Promise<void>((resolve) => {
          if (signal?.aborted) resolve();
          signal?.addEventListener("abort", () => resolve(), { once: true });
        });
        return [];
      } finally {
        receiving--;
      }
    },
    deleteBatch(batch) {
      deleted.push(...batch.map((message) => message.id));
      deleteCalls.push(batch.map((message) => message.id));
      return Promise.resolve([]);
    },
    extendVisibility(batch, seconds) {
      extended.push(batch.map((message) => message.id));
      extendedBy.push(seconds);
      return Promise.resolve([]);
    },
    setVisibility(message, seconds) {
      visibilitySet.push([message.id, seconds]);
      return Promise.resolve();
    },
  };
}

/** Resolves once `check` holds, polling every 50 ms; throws after `timeoutMs`. */
export async function until(
  check: () => Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("Condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
