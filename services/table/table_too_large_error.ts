/**
 * The error of a reply whose table would hold more cells than its bound.
 *
 * @module
 */

/**
 * A table of more cells (rows × columns) than `maxCells`: a reply of a few hundred
 * KB whose every record has a key of its own would fill the memory with empty cells.
 *
 * @example
 * ```ts
 * new TableTooLargeError(20_000, 20_000, 1_000_000).code; // "TABLE_TOO_LARGE"
 * ```
 */
export class TableTooLargeError extends Error {
  /** `"TABLE_TOO_LARGE"`. */
  readonly code = "TABLE_TOO_LARGE";
  /** Rows of the table. */
  readonly rows: number;
  /** Columns of the table. */
  readonly columns: number;
  /** The bound on rows × columns. */
  readonly maxCells: number;

  /** Builds the error for a table of `rows` × `columns` cells over `maxCells`. */
  constructor(rows: number, columns: number, maxCells: number) {
    super(
      `The table has ${rows} rows and ${columns} columns, over ${maxCells} cells`,
    );
    this.name = "TableTooLargeError";
    this.rows = rows;
    this.columns = columns;
    this.maxCells = maxCells;
  }
}
