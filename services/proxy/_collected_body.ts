/**
 * A body passed on to the client and collected on the way, for the response cache.
 *
 * @module
 */
import { concatBytes } from "../../lib/concat_bytes.ts";

/**
 * `body`, passed on part by part as the client reads it, also collected: `done` gets
 * the whole body at its end, or `undefined` once it grows over `limit` bytes, breaks
 * or is cancelled.
 */
export function collected(
  body: ReadableStream<Uint8Array>,
  limit: number,
  done: (bytes: Uint8Array<ArrayBuffer> | undefined) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let parts: Uint8Array[] | undefined = [];
  let length = 0;
  let settled = false;
  const finish = (bytes: Uint8Array<ArrayBuffer> | undefined) => {
    if (settled) return;
    settled = true;
    parts = undefined;
    done(bytes);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let next: ReadableStreamReadResult<Uint8Array>;
      try {
        next = await reader.read();
      } catch (error) {
        finish(undefined);
        controller.error(error);
        return;
      }
      if (next.done) {
        controller.close();
        if (parts === undefined) return finish(undefined);
        return finish(concatBytes(parts, length));
      }
      if (parts !== undefined) {
        length += next.value.byteLength;
        if (length > limit) finish(undefined);
        else parts.push(next.value.slice());
      }
      controller.enqueue(next.value);
    },
    cancel(reason) {
      finish(undefined);
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
