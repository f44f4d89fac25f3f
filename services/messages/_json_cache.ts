/**
 * Serialized responses, with their entity tags, kept until the store's revision
 * moves.
 *
 * @module
 */

/** A JSON response body ready to send, with its length in bytes and its entity tag. */
export interface JsonText {
  /** The JSON text. */
  readonly text: string;
  /** Its UTF-8 length, as `Content-Length` wants it. */
  readonly length: string;
  /**
   * A strong entity tag: a hash of the text and the extra headers, so equal
   * responses carry equal tags in every process, and any change changes it.
   */
  readonly etag: string;
  /** The headers of a 200 response: `content-type`, `etag` and the extra ones. */
  readonly headers: Readonly<Record<string, string>>;
}

/** What a renderer gives: the value to serialize and extra response headers. */
export interface Rendered {
  /** The value sent as JSON. */
  body: unknown;
  /** Headers sent with it (part of the entity tag). */
  headers?: Record<string, string>;
}

/** A cache of JSON responses, emptied whenever `revision()` changes. */
export interface JsonCache {
  /**
   * The response kept for `key` in the current revision, or `undefined`: asked
   * synchronously, before the store, so a cached read costs no promise.
   */
  get(key: string | number): JsonText | undefined;
  /**
   * Renders the response for `key` with `render(key)` and keeps it, unless the
   * revision moved meanwhile (it is given all the same); `undefined`, not kept,
   * when `render` gives `undefined`.
   */
  load<K extends string | number>(
    key: K,
    render: (key: K) => Promise<Rendered | undefined>,
  ): Promise<JsonText | undefined>;
}

/** The characters of JSON text a cache keeps by default: 32 Mi. */
export const DEFAULT_MAX_CACHED_CHARS = 32 * 1024 * 1024;

/**
 * Returns a {@linkcode JsonCache} valid for one revision of the data, holding at most
 * `maxEntries` responses and `maxChars` characters of text besides the last
 * response kept (it starts over when either is full). Without the second bound, pages of
 * 1000 records of 64 KiB, asked with 256 different query strings, would hold 16 GB.
 */
export function createJsonCache(
  revision: () => number,
  maxEntries = 10_000,
  maxChars = DEFAULT_MAX_CACHED_CHARS,
): JsonCache {
  let seen = -1;
  let chars = 0;
  const entries = new Map<string | number, JsonText>();
  const encoder = new TextEncoder();
  const clear = () => {
    entries.clear();
    chars = 0;
  };
  const keep = (key: string | number, entry: JsonText) => {
    // One response larger than the bound (the whole list of many records) is
    // still kept, alone.
    if (entries.size >= maxEntries || chars + entry.text.length > maxChars) {
      clear();
    }
    entries.set(key, entry);
    chars += entry.text.length;
  };
  const serialize = (rendered: Rendered): JsonText => {
    const text = JSON.stringify(rendered.body);
    const extra = rendered.headers ?? {};
    const etag = entityTag(text, extra);
    return {
      text,
      length: String(encoder.encode(text).length),
      etag,
      headers: { "content-type": "application/json", etag, ...extra },
    };
  };
  /** The current revision, after emptying the cache if it moved. */
  const current = () => {
    const now = revision();
    if (now !== seen) {
      clear();
      seen = now;
    }
    return now;
  };
  return {
    get(key) {
      current();
      return entries.get(key);
    },
    async load(key, render) {
      const before = current();
      const rendered = await render(key);
      if (rendered === undefined) return undefined;
      const made = serialize(rendered);
      if (current() === before) keep(key, made);
      return made;
    },
  };
}

/** `"<hash>"`: a 53-bit hash (cyrb53) of the text and the headers, in base 36. */
function entityTag(text: string, headers: Record<string, string>): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  const mix = (part: string) => {
    for (let i = 0; i < part.length; i++) {
      const code = part.charCodeAt(i);
      h1 = Math.imul(h1 ^ code, 2654435761);
      h2 = Math.imul(h2 ^ code, 1597334677);
    }
  };
  mix(text);
  for (const [name, value] of Object.entries(headers)) {
    mix(`\n${name}:${value}`);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  const hash = 4294967296 * (2097151 & h2) + (h1 >>> 0);
  return `"${hash.toString(36)}-${text.length.toString(36)}"`;
}

/**
 * Whether an `If-None-Match` header value names `etag` (weak comparison, as
 * RFC 9110 asks for it) or is `*`.
 */
export function noneMatchHits(header: string, etag: string): boolean {
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => {
    const trimmed = tag.trim();
    return (trimmed.startsWith("W/") ? trimmed.slice(2) : trimmed) === etag;
  });
}
