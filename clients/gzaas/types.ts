/**
 * Types of the {@linkcode Gzaas} client's options and list entries.
 *
 * @module
 */

/** Fields every list entry has; the server may send more. */
export interface GzaasEntry {
  /** The entry's identifier, as given to the setters. */
  hashtag: string;
  /** A human description ("" when the server sent none). */
  description: string;
  /** Further fields sent by the server. */
  [field: string]: unknown;
}

/** A font, from {@linkcode Gzaas.listFonts}. */
export interface GzaasFont extends GzaasEntry {
  /** CSS font family. */
  fontFamily?: string;
}

/** A background pattern, from {@linkcode Gzaas.listPatterns}. */
export type GzaasPattern = GzaasEntry;

/** A style (font, pattern and colours together), from {@linkcode Gzaas.listStyles}. */
export interface GzaasStyle extends GzaasEntry {
  /** The style's font. */
  font?: GzaasFont;
  /** The style's background pattern. */
  pattern?: GzaasPattern;
  /** Text colour (hex, without `#`). */
  color?: string;
  /** Background colour (hex, without `#`). */
  backcolor?: string;
  /** Text shadow. */
  shadow?: string;
}

/** Options of the list calls. */
export interface GzaasListOptions {
  /** Only featured entries (`nowFeatured=1`). @default false */
  nowFeatured?: boolean;
  /** How many entries at most; 0 means all. @default 0 */
  numResults?: number;
  /** Aborts the call. */
  signal?: AbortSignal;
}

/** Options of {@linkcode Gzaas.create}. */
export interface GzaasCreateOptions {
  /** Aborts the call. */
  signal?: AbortSignal;
}

/** Options of the {@linkcode Gzaas} constructor. */
export interface GzaasOptions {
  /** Base URL of the API. @default "http://gzaas.com/api/v1" */
  baseUrl?: string;
  /** The fetch to use (a test double, a proxy-aware one...). @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Longest wait for a whole reply, in milliseconds. @default 10000 */
  timeoutMs?: number;
  /**
   * Bound on the bytes of a reply's body (as `fetch` decodes it): a longer reply
   * fails with a {@linkcode GzaasError} of kind `too-large`. @default 4194304 (4 MiB)
   */
  maxReplyBytes?: number;
}
