/**
 * The order in which the forwarder posts a received batch.
 *
 * @module
 */
import type { QueueMessage } from "./sqs_queue.ts";

/**
 * Splits `messages` into chains: the messages of one group form one chain, in receive
 * order; a message without a group is a chain of its own. The forwarder posts a chain
 * one message after another and the chains concurrently. Chains come in the order of
 * their first message.
 *
 * @example
 * ```ts
 * import type { QueueMessage } from "./sqs_queue.ts";
 *
 * declare const received: QueueMessage[];
 * const [a1, b1, a2, loose] = received; // groups "a", "b", "a", none
 * groupChains(received); // [[a1, a2], [b1], [loose]]
 * ```
 */
export function groupChains(
  messages: readonly QueueMessage[],
): QueueMessage[][] {
  const chains: QueueMessage[][] = [];
  const byGroup = new Map<string, QueueMessage[]>();
  for (const message of messages) {
    if (message.groupId === undefined) {
      chains.push([message]);
      continue;
    }
    const chain = byGroup.get(message.groupId);
    if (chain) chain.push(message);
    else {
      const started = [message];
      byGroup.set(message.groupId, started);
      chains.push(started);
    }
  }
  return chains;
}
