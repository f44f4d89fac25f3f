/**
 * Reads a service's reply without letting a broken or hostile one fill the memory.
 *
 * @module
 */
import { concatBytes } from "../../lib/concat_bytes.ts";

/**
 * The first `maxBytes` of `response`'s body as UTF-8 text; the rest is not read
 * (the stream is cancelled). A reply ending early or failing mid-way rejects, as
 * `response.text()` does.
 *
 * @example
 * ```ts
 * const text = await replyText(await fetch("http://127.0.0.1:8004/healthz"), 65_536);
 * ```
 */
export async function replyText(
  response: Response,
  maxBytes: number,
): Promise<string> {
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      const room = maxBytes - size;
      chunks.push(value.length > room ? value.subarray(0, room) : value);
      size += Math.min(value.length, room);
    }
  } finally {
    // Nothing more is wanted: an endless reply stops here.
    await reader.cancel().catch(() => {});
  }
  return new TextDecoder().decode(concatBytes(chunks, size));
}
