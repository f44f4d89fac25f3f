/**
 * Shortening input echoed in messages and log lines.
 *
 * @module
 */

/**
 * `text` cut to its first `max` characters (code points, so no surrogate pair is
 * split) with `...` after, when longer: an error message or log line that quotes
 * what a client sent stays short whatever it sent.
 *
 * @example
 * ```ts
 * preview("a".repeat(100), 5); // "aaaaa..."
 * ```
 */
export function preview(text: string, max = 80): string {
  if (text.length <= max) return text;
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max).join("")}...` : text;
}
