/**
 * A view of the table: the global and column filters, the sort, the hidden columns and
 * the page, read from and written to URL parameters, and the rows it shows.
 *
 * One implementation for both sides: `GET /api/table.csv` calls these functions on the
 * server, and the page's script embeds their very source ({@linkcode viewScript}), so
 * the page and the CSV cannot disagree. Each function listed in `VIEW_FUNCTIONS` is
 * therefore self-contained: it may use the language's built-ins and the other listed
 * functions only (no imports, no module constants).
 *
 * URL parameters (all optional; a link without any shows the default view):
 * `filter` (global filter), `filter.<column>` (one column's filter), `sort` (a column
 * name), `order` (`asc` or `desc`), `hide` (a column name, repeated), `page` (from 1),
 * `size` (rows per page: 10, 25, 50 or 100).
 *
 * @module
 */
import type { Cell, Table } from "./to_table.ts";

/** Direction of the sort, as `aria-sort` names it. */
export type SortOrder = "ascending" | "descending";

/** What a view shows; column names, not positions, so it survives a refresh. */
export interface TableView {
  /** Global filter: a case-insensitive substring of any shown cell. */
  filter: string;
  /** Filter text per column name (empty texts are left out). */
  columnFilters: Map<string, string>;
  /** Sort column and direction, or `null` for the API's order. */
  sort: { column: string; order: SortOrder } | null;
  /** Names of the hidden columns. */
  hidden: string[];
  /** The page, from 0. */
  page: number;
  /** Rows per page, one of {@linkcode pageSizes}. */
  pageSize: number;
}

/** The view resolved against a table's columns, and the rows it matches. */
export interface ViewRows {
  /** Positions of the shown columns, in table order (never empty for a table with columns). */
  visible: number[];
  /** The sort in force (its column exists and is shown), or `null`. */
  sort: { index: number; order: SortOrder } | null;
  /** Whole rows matched by every filter, in the view's order. */
  rows: Cell[][];
}

/** The offered page sizes; the first but one (25) is the default. */
export function pageSizes(): number[] {
  return [10, 25, 50, 100];
}

/** The view of a URL without parameters: everything shown, API order, 25 rows a page. */
export function defaultView(): TableView {
  return {
    filter: "",
    columnFilters: new Map(),
    sort: null,
    hidden: [],
    page: 0,
    pageSize: 25,
  };
}

/**
 * Reads a view from URL parameters. Unknown parameters are ignored; a value that
 * cannot be read leaves the default and adds a problem (the page ignores problems,
 * the CSV endpoint returns 400 with them). Column names are not checked here: a
 * link keeps working when a column comes and goes.
 *
 * @example
 * ```ts
 * readView(new URLSearchParams("sort=name&order=desc&filter.age=%3E30")).view;
 * // { sort: { column: "name", order: "descending" }, columnFilters: Map { "age" => ">30" }, ... }
 * ```
 */
export function readView(
  params: URLSearchParams,
): { view: TableView; problems: string[] } {
  const view = defaultView();
  const problems: string[] = [];
  let order: SortOrder = "ascending";
  for (const [name, value] of params) {
    if (name === "filter") {
      view.filter = value;
    } else if (name.startsWith("filter.")) {
      if (value.trim() !== "") view.columnFilters.set(name.slice(7), value);
    } else if (name === "sort") {
      view.sort = value === "" ? null : { column: value, order };
    } else if (name === "order") {
      if (value === "asc" || value === "desc") {
        order = value === "asc" ? "ascending" : "descending";
      } else {
        problems.push(`Invalid order "${value}": expected asc or desc`);
      }
    } else if (name === "hide") {
      if (!view.hidden.includes(value)) view.hidden.push(value);
    } else if (name === "page") {
      const page = /^\d{1,9}$/.test(value) ? Number(value) : 0;
      if (page >= 1) view.page = page - 1;
      else {
        problems.push(
          `Invalid page "${value}": expected a page number from 1`,
        );
      }
    } else if (name === "size") {
      const size = /^\d{1,4}$/.test(value) ? Number(value) : 0;
      if (pageSizes().includes(size)) view.pageSize = size;
      else {
        problems.push(
          `Invalid size "${value}": expected one of ${pageSizes().join(", ")}`,
        );
      }
    }
  }
  if (view.sort !== null) view.sort.order = order;
  return { view, problems };
}

/**
 * Writes a view as URL parameters, leaving out what equals the default, so the
 * default view is a URL without parameters.
 *
 * @example
 * ```ts
 * writeView({ ...defaultView(), sort: { column: "name", order: "descending" } })
 *   .toString(); // "sort=name&order=desc"
 * ```
 */
export function writeView(view: TableView): URLSearchParams {
  const params = new URLSearchParams();
  if (view.filter !== "") params.append("filter", view.filter);
  for (const [column, text] of view.columnFilters) {
    if (text.trim() !== "") params.append(`filter.${column}`, text);
  }
  if (view.sort !== null) {
    params.append("sort", view.sort.column);
    if (view.sort.order === "descending") params.append("order", "desc");
  }
  for (const column of view.hidden) params.append("hide", column);
  if (view.page > 0) params.append("page", String(view.page + 1));
  if (view.pageSize !== defaultView().pageSize) {
    params.append("size", String(view.pageSize));
  }
  return params;
}

/** A cell as the page shows it: `null` is empty, anything else its `String()`. */
export function cellText(cell: Cell): string {
  return cell === null ? "" : String(cell);
}

/**
 * Orders two cells: numbers by value, anything else by its text through `collator`
 * (so "item 2" comes before "item 10"). `null` is not ordered here: the caller keeps
 * empty cells last in both directions.
 */
export function compareCells(
  a: Cell,
  b: Cell,
  collator: Intl.Collator,
): number {
  if (a === b) return 0;
  if (typeof a === "number" && typeof b === "number") return a - b;
  return collator.compare(cellText(a), cellText(b));
}

/** Whether a column holds numbers only (and at least one): it gets numeric filters. */
export function isNumericColumn(rows: Cell[][], index: number): boolean {
  let numbers = 0;
  for (const row of rows) {
    const cell = row[index] ?? null;
    if (cell === null) continue;
    if (typeof cell !== "number") return false;
    numbers += 1;
  }
  return numbers > 0;
}

/**
 * Returns the test of one filter text: a case-insensitive substring of the cell's text;
 * for a numeric column also `>`, `<`, `>=`, `<=` or `=` followed by a number (blanks
 * allowed around it), which compares values and never matches an empty cell.
 *
 * @example
 * ```ts
 * cellTest(">= 10", true)(12); // true
 * cellTest("ada", false)("Ada Thornbury"); // true
 * ```
 */
export function cellTest(
  text: string,
  numeric: boolean,
): (cell: Cell) => boolean {
  const needle = text.trim().toLowerCase();
  const comparison = numeric ? /^(>=|<=|>|<|=)\s*(\S+)$/.exec(needle) : null;
  if (
    comparison !== null &&
    // One way to match each number (not `\d+\.?\d*`): no backtracking over a
    // long run of digits.
    /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/.test(comparison[2] ?? "")
  ) {
    const operator = comparison[1];
    const limit = Number(comparison[2]);
    return (cell) => {
      if (typeof cell !== "number") return false;
      if (operator === ">=") return cell >= limit;
      if (operator === "<=") return cell <= limit;
      if (operator === ">") return cell > limit;
      if (operator === "<") return cell < limit;
      return cell === limit;
    };
  }
  return (cell) => cellText(cell).toLowerCase().includes(needle);
}

/**
 * The rows a view shows of a table: the shown columns (hidden ones left out, but at
 * least the first column stays), the rows matched by the global filter (in any shown
 * cell) and by every column filter of a shown column, sorted by the sort column when
 * it is shown (stable; empty cells last in both directions). Filters and sorts naming
 * a hidden or unknown column are ignored. Every page at once: see {@linkcode pageOf}.
 */
export function viewRows(table: Table, view: TableView): ViewRows {
  const visible: number[] = [];
  table.columns.forEach((name, index) => {
    if (!view.hidden.includes(name)) visible.push(index);
  });
  if (visible.length === 0 && table.columns.length > 0) visible.push(0);
  const tests: { index: number; test: (cell: Cell) => boolean }[] = [];
  for (const [column, text] of view.columnFilters) {
    const index = table.columns.indexOf(column);
    if (text.trim() === "" || !visible.includes(index)) continue;
    tests.push({
      index,
      test: cellTest(text, isNumericColumn(table.rows, index)),
    });
  }
  const needle = view.filter.trim();
  const global = cellTest(needle, false);
  const rows = table.rows.filter((row) =>
    (needle === "" || visible.some((index) => global(row[index] ?? null))) &&
    tests.every(({ index, test }) => test(row[index] ?? null))
  );
  const sortIndex = view.sort === null
    ? -1
    : table.columns.indexOf(view.sort.column);
  if (view.sort === null || !visible.includes(sortIndex)) {
    return { visible, sort: null, rows };
  }
  const order = view.sort.order;
  const collator = new Intl.Collator("en", {
    numeric: true,
    sensitivity: "base",
  });
  const sign = order === "descending" ? -1 : 1;
  const sorted = rows.map((row, position) => ({ row, position }))
    .sort((a, b) => {
      const x = a.row[sortIndex] ?? null;
      const y = b.row[sortIndex] ?? null;
      if (x === null || y === null) {
        return (x === null ? 1 : 0) - (y === null ? 1 : 0) ||
          a.position - b.position;
      }
      return sign * compareCells(x, y, collator) || a.position - b.position;
    })
    .map(({ row }) => row);
  return { visible, sort: { index: sortIndex, order }, rows: sorted };
}

/**
 * The page of `count` rows a view shows: the view's page, or the last page when the
 * rows no longer reach it. `start` and `end` delimit the page's rows (end exclusive).
 */
export function pageOf(
  count: number,
  view: TableView,
): { page: number; pages: number; start: number; end: number } {
  const pages = Math.max(1, Math.ceil(count / view.pageSize));
  const page = Math.min(Math.max(0, view.page), pages - 1);
  const start = page * view.pageSize;
  return { page, pages, start, end: Math.min(count, start + view.pageSize) };
}

const VIEW_FUNCTIONS = [
  pageSizes,
  defaultView,
  readView,
  writeView,
  cellText,
  compareCells,
  isNumericColumn,
  cellTest,
  viewRows,
  pageOf,
];

/**
 * The source of this module's functions, for the page's script to embed: the browser
 * then runs the code the server runs.
 */
export function viewScript(): string {
  return VIEW_FUNCTIONS.map((fn) => fn.toString()).join("\n");
}
