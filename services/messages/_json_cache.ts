/**
 * Serialized answers kept until the store's revision moves.
 *
 * @module
 */

/** A JSON text ready to answer, with its length in bytes. */
export interface JsonText {
  /** The JSON text. */
  readonly text: string;
  /** Its UTF-8 length, as `Content-Length` wants it. */
  readonly length: string;
}

/** A cache of JSON texts, emptied whenever `revision()` changes. */
export interface JsonCache {
  /**
   * Returns the JSON text for `key`, rendering it with `render(key)` when not
   * cached; `undefined` (not cached) when `render` returns `undefined`.
   */
  get<K extends string | number>(
    key: K,
    render: (key: K) => unknown,
  ): JsonText | undefined;
}

/**
 * Returns a {@linkcode JsonCache} valid for one revision of the data, holding at most
 * `maxEntries` texts (it starts over when full).
 */
export function createJsonCache(
  revision: () => number,
  maxEntries = 10_000,
): JsonCache {
  let seen = -1;
  const entries = new Map<string | number, JsonText>();
  const encoder = new TextEncoder();
  return {
    get(key, render) {
      const current = revision();
      if (current !== seen) {
        entries.clear();
        seen = current;
      }
      let entry = entries.get(key);
      if (entry === undefined) {
        const value = render(key);
        if (value === undefined) return undefined;
        const text = JSON.stringify(value);
        entry = { text, length: String(encoder.encode(text).length) };
        if (entries.size >= maxEntries) entries.clear();
        entries.set(key, entry);
      }
      return entry;
    },
  };
}
