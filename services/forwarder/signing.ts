/**
 * Standard Webhooks signatures of the posts: `webhook-id`, `webhook-timestamp` and
 * `webhook-signature`.
 *
 * @module
 */
import { createHmac } from "node:crypto";

/** Header pairs, as the poster adds them to a request. */
export type HeaderPairs = [string, string][];

/** Signs one post: the message id and the body exactly as sent. */
export type Signer = (id: string, sentBody: string) => HeaderPairs;

/**
 * Returns a {@linkcode Signer} for `key` (the decoded secret): `webhook-id` is `id`
 * (the SQS message id, the same on every redelivery, so a receiver can drop a
 * duplicate), `webhook-timestamp` the Unix seconds of this attempt, and
 * `webhook-signature` `v1,` followed by the base64 HMAC-SHA256 of
 * `id.timestamp.body`, the body's UTF-8 bytes.
 *
 * @example
 * ```ts
 * import { parseSigningSecret } from "./signing_secret.ts";
 *
 * const sign = createSigner(parseSigningSecret("whsec_c2VjcmV0"));
 * sign("msg-1", '"hello"'); // [["webhook-id", "msg-1"], ["webhook-timestamp", "1764086400"], ...]
 * ```
 */
export function createSigner(
  key: Uint8Array,
  now: () => number = Date.now,
): Signer {
  return (id, sentBody) => {
    const timestamp = String(Math.floor(now() / 1000));
    const signature = createHmac("sha256", key)
      .update(`${id}.${timestamp}.${sentBody}`, "utf8")
      .digest("base64");
    return [
      ["webhook-id", id],
      ["webhook-timestamp", timestamp],
      ["webhook-signature", `v1,${signature}`],
    ];
  };
}
