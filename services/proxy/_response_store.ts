/**
 * The response cache's memory: entries by key, bounded by the bytes of their bodies,
 * and by as many bytes again (1 MiB at least) for the rest of each entry (key,
 * headers and a fixed share), the least recently used out first.
 *
 * @module
 */

/** One stored response. */
export interface StoredResponse {
  /** The whole key: route, target URL and the values of the varied headers. */
  readonly key: string;
  /** Route and target URL only (what a POST, PUT or DELETE there invalidates). */
  readonly primary: string;
  /** Lower-case names of the request headers the response varies on. */
  readonly vary: readonly string[];
  readonly status: number;
  readonly statusText: string;
  /** Headers as relayed, without `Age` and `X-Cache`. */
  readonly headers: readonly [string, string][];
  readonly body: Uint8Array<ArrayBuffer>;
  /** When it was stored (ms since the epoch). */
  readonly storedAt: number;
  /** When it stops being served (ms since the epoch). */
  readonly expiresAt: number;
  /** Seconds it had spent in caches before the proxy (the upstream's `Age`). */
  readonly upstreamAge: number;
}

/** Entries by key, LRU within a byte bound. */
export interface ResponseStore {
  /** The entry, marked as just used; `undefined` when absent or expired at `now`. */
  get(key: string, now: number): StoredResponse | undefined;
  /** The varied header names of the last response stored for `primary`. */
  varyOf(primary: string): readonly string[] | undefined;
  /** Stores `entry` (replacing one of its key), then evicts down to the bound. */
  put(entry: StoredResponse): void;
  /** Drops every entry of `primary`. */
  invalidate(primary: string): void;
  /** Bytes of the stored bodies. */
  readonly bytes: number;
  /** Bytes counted for the rest of the stored entries (see {@linkcode entryOverhead}). */
  readonly overheadBytes: number;
  /** Number of entries. */
  readonly size: number;
}

/** What one entry holds besides its body and texts (objects, map slots), roughly. */
const ENTRY_OVERHEAD = 256;

/** The least bound on the entries' bytes besides their bodies (4096 entries or so). */
const MIN_OVERHEAD_BYTES = 1024 * 1024;

/**
 * The bytes an entry counts for besides its body: its key and headers, and a fixed
 * share. Bodies alone would let clients pile up entries with empty bodies, one per
 * URL they make up, without bound.
 *
 * @example
 * ```ts
 * declare const entry: StoredResponse;
 * entryOverhead(entry); // its key's and headers' lengths + 256
 * ```
 */
export function entryOverhead(entry: StoredResponse): number {
  let size = ENTRY_OVERHEAD + entry.key.length;
  for (const [name, value] of entry.headers) size += name.length + value.length;
  return size;
}

/**
 * Returns an empty store bounded by `maxBytes` as `docs/proxy.md#response-cache`
 * states (the rest of an entry is counted by {@linkcode entryOverhead}).
 *
 * @example
 * ```ts
 * const store = createResponseStore(16 * 1024 * 1024);
 * ```
 */
export function createResponseStore(maxBytes: number): ResponseStore {
  // A Map iterates in insertion order: deleting and setting again marks as used.
  const entries = new Map<string, StoredResponse>();
  const byPrimary = new Map<string, Set<string>>();
  const varies = new Map<string, readonly string[]>();
  let bytes = 0;
  let overheadBytes = 0;
  const maxOverheadBytes = Math.max(maxBytes, MIN_OVERHEAD_BYTES);

  const remove = (entry: StoredResponse) => {
    entries.delete(entry.key);
    bytes -= entry.body.byteLength;
    overheadBytes -= entryOverhead(entry);
    const keys = byPrimary.get(entry.primary);
    keys?.delete(entry.key);
    if (keys?.size === 0) {
      byPrimary.delete(entry.primary);
      varies.delete(entry.primary);
    }
  };

  return {
    get(key, now) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (entry.expiresAt <= now) {
        remove(entry);
        return undefined;
      }
      entries.delete(key);
      entries.set(key, entry);
      return entry;
    },
    varyOf: (primary) => varies.get(primary),
    put(entry) {
      const old = entries.get(entry.key);
      if (old !== undefined) remove(old);
      entries.set(entry.key, entry);
      bytes += entry.body.byteLength;
      overheadBytes += entryOverhead(entry);
      const keys = byPrimary.get(entry.primary) ?? new Set();
      keys.add(entry.key);
      byPrimary.set(entry.primary, keys);
      varies.set(entry.primary, entry.vary);
      for (const oldest of entries.values()) {
        if (bytes <= maxBytes && overheadBytes <= maxOverheadBytes) break;
        remove(oldest);
      }
    },
    invalidate(primary) {
      for (const key of byPrimary.get(primary) ?? []) {
        const entry = entries.get(key);
        if (entry !== undefined) remove(entry);
      }
    },
    get bytes() {
      return bytes;
    },
    get overheadBytes() {
      return overheadBytes;
    },
    get size() {
      return entries.size;
    },
  };
}
