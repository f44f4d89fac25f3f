/**
 * The case folding of the `messages` role's case-insensitive filters, the same on
 * SQLite (in JavaScript) and on PostgreSQL (in SQL).
 *
 * @module
 */

/**
 * `text` lower-cased as JavaScript's `toLowerCase()` does (as json-server's `q`
 * does), with every sigma as `σ`: `toLowerCase()` picks `ς` or `σ` by the letters
 * around it, so `ΣΊΣ` (`σίς`) would not be found in `ΣΊΣΥΦΟΣ` (`σίσυφος`), and
 * PostgreSQL's `lower()` never gives `ς`.
 *
 * @example
 * ```ts
 * foldCase("ΣΊΣΥΦΟΣ İstanbul"); // "σίσυφοσ i̇stanbul" (İ: i and U+0307)
 * ```
 */
export function foldCase(text: string): string {
  return text.toLowerCase().replaceAll("\u03c2", "\u03c3");
}

/**
 * {@linkcode foldCase} of a PostgreSQL text expression, as SQL: `lower()`, which
 * in a UTF-8 locale lower-cases every letter as `toLowerCase()` does but for `İ`
 * (to `i` rather than `i̇`, `i` and U+0307) and a final sigma (`σ`, never `ς`).
 *
 * @example
 * ```ts
 * postgresFold("author"); // "translate(lower(replace(author, 'İ', 'i̇')), 'ς', 'σ')"
 * ```
 */
export function postgresFold(expression: string): string {
  return `translate(lower(replace(${expression}, '\u0130', 'i\u0307')), '\u03c2', '\u03c3')`;
}
