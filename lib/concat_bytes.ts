/**
 * Joining byte chunks into one array.
 *
 * @module
 */

/**
 * The bytes of `chunks`, in order, in one new array of `size` bytes (their total
 * length unless given: code that counted them as they came passes its count).
 *
 * @example
 * ```ts
 * const joined = concatBytes([new Uint8Array([1, 2]), new Uint8Array([3])]);
 * joined; // Uint8Array [1, 2, 3]
 * ```
 */
export function concatBytes(
  chunks: readonly Uint8Array[],
  size: number = chunks.reduce((total, chunk) => total + chunk.length, 0),
): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}
