/**
 * The case folding of the `messages` role's case-insensitive filters, the same on
 * SQLite (in JavaScript) and on PostgreSQL (in SQL).
 *
 * @module
 */

/**
 * `text` lower-cased letter by letter: JavaScript's `toLowerCase()` with `İ` (U+0130)
 * folded to a plain `i` and every sigma to `σ`. That is what PostgreSQL's `lower()`
 * gives in a UTF-8 locale once `ς` is mapped to `σ` (see
 * {@linkcode postgresFold}): `toLowerCase()` alone turns `İ` into two characters
 * and picks `ς` or `σ` by the letters around it, so `ΣΊΣ` would not be found in
 * `ΣΊΣΥΦΟΣ`.
 *
 * @example
 * ```ts
 * foldCase("ΣΊΣΥΦΟΣ İstanbul"); // "σίσυφοσ istanbul"
 * ```
 */
export function foldCase(text: string): string {
  return text.replaceAll("\u0130", "i").toLowerCase().replaceAll(
    "\u03c2",
    "\u03c3",
  );
}

/**
 * {@linkcode foldCase} of a PostgreSQL text expression, as SQL.
 *
 * @example
 * ```ts
 * postgresFold("author"); // "translate(lower(author), 'ς', 'σ')"
 * ```
 */
export function postgresFold(expression: string): string {
  return `translate(lower(${expression}), '\u03c2', '\u03c3')`;
}
