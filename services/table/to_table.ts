/**
 * The table client's reply rules: any JSON value becomes a table of flat rows.
 *
 * @module
 */

import { TableTooLargeError } from "./table_too_large_error.ts";

/** One cell: a JSON scalar (arrays and empty objects are shown as JSON text). */
export type Cell = string | number | boolean | null;

/** A table: column names, and rows of cells in column order. */
export interface Table {
  /** Column names; nested members are joined with dots (`address.city`). */
  columns: string[];
  /** Rows, each with one cell per column (`null` where a row lacks the column). */
  rows: Cell[][];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toCell(value: unknown): Cell {
  if (value === undefined || value === null) return null;
  // JSON has no Infinity: a number past a double (1e400) reaches the page as null,
  // so the CSV, filters and sort take it as null too.
  if (typeof value === "number" && !Number.isFinite(value)) return null;
  if (["string", "number", "boolean"].includes(typeof value)) {
    return value as Cell;
  }
  return JSON.stringify(value);
}

/** Deepest nesting flattened into columns; deeper objects stay one cell. */
const MAX_DEPTH = 32;

/**
 * Flattens nested objects into dotted names: `{a: {b: 1}}` gives `{"a.b": 1}`.
 * Arrays, empty objects and objects nested deeper than 32 levels stay one cell, shown
 * as JSON text.
 */
export function flattenRecord(
  record: Record<string, unknown>,
  prefix = "",
  into: Map<string, Cell> = new Map(),
  depth = 0,
): Map<string, Cell> {
  for (const [key, value] of Object.entries(record)) {
    if (
      isObject(value) && Object.keys(value).length > 0 && depth < MAX_DEPTH
    ) {
      flattenRecord(value, `${prefix}${key}.`, into, depth + 1);
    } else {
      into.set(`${prefix}${key}`, toCell(value));
    }
  }
  return into;
}

function rowOf(item: unknown): Map<string, Cell> {
  if (isObject(item)) return flattenRecord(item);
  if (Array.isArray(item)) {
    return new Map(item.map((cell, i) => [`V${i + 1}`, toCell(cell)]));
  }
  return new Map([["value", toCell(item)]]);
}

/**
 * Applies the reply rules to a decoded JSON value: an object with a `data` member
 * is replaced by that member; an array gives one row per item (objects flattened into
 * dotted columns, scalars in a column `value`, arrays in columns `V1`, `V2`...);
 * an object gives one row; a scalar gives one row with one column `value`; `null`
 * gives no rows.
 *
 * @param options.maxCells Bound on the table's cells (rows × columns). @default Infinity
 * @throws {TableTooLargeError} when the table would hold more than `maxCells` cells,
 * checked before the rows are built.
 *
 * @example
 * ```ts
 * toTable({ data: [{ name: "Ada", address: { city: "Leeds" } }] });
 * // { columns: ["name", "address.city"], rows: [["Ada", "Leeds"]] }
 * toTable(42); // { columns: ["value"], rows: [[42]] }
 * ```
 */
export function toTable(
  reply: unknown,
  { maxCells = Infinity }: { maxCells?: number } = {},
): Table {
  const value = isObject(reply) && "data" in reply ? reply.data : reply;
  const items = Array.isArray(value)
    ? value
    : value === null || value === undefined
    ? []
    : [value];
  const records = items.map(rowOf);
  const columns: string[] = [];
  const known = new Set<string>();
  for (const record of records) {
    for (const name of record.keys()) {
      if (!known.has(name)) {
        known.add(name);
        columns.push(name);
      }
    }
  }
  if (columns.length === 0 && !Array.isArray(value)) columns.push("value");
  // Rows missing a column get an empty cell: records with keys of their own would
  // otherwise grow rows × columns past any memory (a 250 KB reply to 5 GB).
  if (records.length * columns.length > maxCells) {
    throw new TableTooLargeError(records.length, columns.length, maxCells);
  }
  return {
    columns,
    rows: records.map((record) => columns.map((c) => record.get(c) ?? null)),
  };
}
