/**
 * The table as CSV for spreadsheet programs: RFC 4180 with a UTF-8 byte order mark,
 * and text that a spreadsheet would run as a formula defused.
 *
 * @module
 */
import type { Cell } from "./to_table.ts";

/** The characters that make a spreadsheet read a cell as a formula (OWASP's list). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV field: `null` is empty; text starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return gets a leading `'` so no spreadsheet runs it as a formula (numbers
 * are written as they are: `-3` is a number, not a formula); a field holding a comma,
 * a double quote or a line break is quoted, its quotes doubled.
 *
 * @example
 * ```ts
 * csvField("=SUM(A1)"); // "'=SUM(A1)"
 * csvField('say "hi", Ada'); // "\"say \"\"hi\"\", Ada\""
 * csvField(-3); // "-3"
 * ```
 */
export function csvField(cell: Cell): string {
  if (cell === null) return "";
  let text = String(cell);
  if (typeof cell === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * A CSV document: a byte order mark (so spreadsheet programs read the UTF-8 accents),
 * the header line, then one line per row, each line ended by CRLF.
 *
 * @example
 * ```ts
 * toCsv(["name", "age"], [["Zoë", 7]]); // "\uFEFFname,age\r\nZoë,7\r\n"
 * ```
 */
export function toCsv(columns: string[], rows: Cell[][]): string {
  const lines = [columns, ...rows].map((row) => row.map(csvField).join(","));
  return `\uFEFF${lines.join("\r\n")}\r\n`;
}
