/**
 * The headers a post carries besides `Authorization` and `Content-Type`: the sqsd
 * headers, then the Standard Webhooks signature.
 *
 * @module
 */
import type { ExtraHeaders } from "./poster.ts";
import type { Signer } from "./signing.ts";
import type { QueueMessage } from "./sqs_queue.ts";

/**
 * Returns the function giving a message's extra headers, or `undefined` when there
 * are none to add (the post then carries `Authorization` and `Content-Type` alone).
 *
 * @example
 * ```ts
 * import type { Post } from "./poster.ts";
 * import { createSigner } from "./signing.ts";
 * import type { QueueMessage } from "./sqs_queue.ts";
 *
 * declare const post: Post, message: QueueMessage, key: Uint8Array;
 * const headersOf = createMessageHeaders({ sign: createSigner(key) });
 * await post(message.body, AbortSignal.timeout(30_000), headersOf?.(message));
 * ```
 */
export function createMessageHeaders(options: {
  /** The `X-Aws-Sqsd-*` headers of a message (FORWARD_METADATA=sqsd). */
  sqsd?: (message: QueueMessage) => [string, string][];
  /** Signs the body as sent (FORWARD_SIGNING_SECRET). */
  sign?: Signer;
}): ((message: QueueMessage) => ExtraHeaders) | undefined {
  const { sqsd, sign } = options;
  if (sqsd === undefined && sign === undefined) return undefined;
  return (message) => (sentBody) => [
    ...(sqsd?.(message) ?? []),
    ...(sign?.(message.id, sentBody) ?? []),
  ];
}
