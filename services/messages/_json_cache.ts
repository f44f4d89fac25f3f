/**
 * Serialized answers kept until the store's revision moves.
 *
 * @module
 */

/** A cache of JSON texts, emptied whenever `revision()` changes. */
export interface JsonCache {
  /**
   * Returns the JSON text for `key`, rendering it with `render(key)` when not
   * cached; `undefined` (not cached) when `render` returns `undefined`.
   */
  get<K extends string | number>(
    key: K,
    render: (key: K) => unknown,
  ): string | undefined;
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
  const entries = new Map<string | number, string>();
  return {
    get(key, render) {
      const current = revision();
      if (current !== seen) {
        entries.clear();
        seen = current;
      }
      let text = entries.get(key);
      if (text === undefined) {
        const value = render(key);
        if (value === undefined) return undefined;
        text = JSON.stringify(value);
        if (entries.size >= maxEntries) entries.clear();
        entries.set(key, text);
      }
      return text;
    },
  };
}
