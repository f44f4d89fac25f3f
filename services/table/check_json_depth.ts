/**
 * A bound on the nesting of JSON text, checked on its bytes before it is parsed.
 *
 * @module
 */

/**
 * JSON text nested deeper than `maxDepth` arrays and objects. `JSON.stringify` takes
 * time growing with the square of a value's depth: a 20 MB reply of 10 million
 * nested arrays kept the table role busy for 86 s to show it as one cell.
 *
 * @example
 * ```ts
 * new JsonTooDeepError(10_000).code; // "JSON_TOO_DEEP"
 * ```
 */
export class JsonTooDeepError extends Error {
  /** `"JSON_TOO_DEEP"`. */
  readonly code = "JSON_TOO_DEEP";
  /** The bound on the nesting. */
  readonly maxDepth: number;

  /** Builds the error for JSON text nested deeper than `maxDepth`. */
  constructor(maxDepth: number) {
    super(`The JSON text is nested deeper than ${maxDepth} levels`);
    this.name = "JsonTooDeepError";
    this.maxDepth = maxDepth;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Throws a {@linkcode JsonTooDeepError} as soon as the UTF-8 JSON text `bytes` opens
 * more than `maxDepth` arrays and objects at once (brackets in strings do not count).
 * Text that is not JSON passes: the parser reports it.
 *
 * @example
 * ```ts
 * const bytes = new TextEncoder().encode('[[{"a": "[[["}]]');
 * checkJsonDepth(bytes, 3); // passes: depth 3
 * ```
 */
export function checkJsonDepth(bytes: Uint8Array, maxDepth: number): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > maxDepth) throw new JsonTooDeepError(maxDepth);
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
}
