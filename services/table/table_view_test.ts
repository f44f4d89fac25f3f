import assert from "node:assert/strict";
import {
  cellTest,
  defaultView,
  isNumericColumn,
  pageOf,
  readView,
  type TableView,
  viewRows,
  viewScript,
  writeView,
} from "./table_view.ts";
import type { Table } from "./to_table.ts";

const table: Table = {
  columns: ["name", "age", "city", "note"],
  rows: [
    ["Ada", 36, "Leeds", "=SUM(A1)"],
    ["émile", 7, "York", null],
    ["Zoë", null, "leeds", "item 10"],
    ["bob", 120, null, "item 2"],
    ["Ada", -4, "Hull", "x"],
  ],
};

const view = (changes: Partial<TableView>): TableView => ({
  ...defaultView(),
  ...changes,
});
const names = (result: { rows: Table["rows"] }) =>
  result.rows.map((row) => row[0]);

Deno.test("readView() reads every parameter and writeView() writes it back", () => {
  const query =
    "filter=le&filter.age=%3E%3D+7&filter.address.city=York&sort=name&order=desc&hide=note&hide=city&page=3&size=50";
  const { view: read, problems } = readView(new URLSearchParams(query));
  assert.deepEqual(problems, []);
  assert.deepEqual(read, {
    filter: "le",
    columnFilters: new Map([["age", ">= 7"], ["address.city", "York"]]),
    sort: { column: "name", order: "descending" },
    hidden: ["note", "city"],
    page: 2,
    pageSize: 50,
  });
  assert.equal(writeView(read).toString(), query);
});

Deno.test("readView() takes order before sort too, and ignores unknown parameters", () => {
  const { view: read, problems } = readView(
    new URLSearchParams("order=desc&sort=age&utm=x&filter.city="),
  );
  assert.deepEqual(problems, []);
  assert.deepEqual(read.sort, { column: "age", order: "descending" });
  assert.equal(read.columnFilters.size, 0, "an empty column filter is none");
});

Deno.test("writeView() of the default view is empty: a plain URL", () => {
  assert.equal(writeView(defaultView()).toString(), "");
  assert.deepEqual(readView(new URLSearchParams("")).view, defaultView());
});

Deno.test("readView() reports values it cannot read and keeps the defaults", () => {
  const { view: read, problems } = readView(
    new URLSearchParams("order=up&page=0&size=30&page=x"),
  );
  assert.deepEqual(problems, [
    'Invalid order "up": expected asc or desc',
    'Invalid page "0": expected a page number from 1',
    'Invalid size "30": expected one of 10, 25, 50, 100',
    'Invalid page "x": expected a page number from 1',
  ]);
  assert.equal(read.page, 0);
  assert.equal(read.pageSize, 25);
});

Deno.test("cellTest() matches substrings case-insensitively", () => {
  assert.equal(cellTest("LEE", false)("Leeds"), true);
  assert.equal(cellTest(" ÉMI ", false)("émile"), true, "trimmed, any case");
  assert.equal(cellTest("emile", false)("émile"), false, "accents count");
  assert.equal(cellTest("mil", false)("émile"), true);
  assert.equal(cellTest("3", true)(36), true, "digits of a number");
  assert.equal(cellTest("x", false)(null), false);
  assert.equal(cellTest("true", false)(true), true);
});

Deno.test("cellTest() compares numbers in numeric columns", async (t) => {
  for (
    const [text, matches] of [
      [">7", [36, 120]],
      [">= 7", [36, 7, 120]],
      ["<7", [-4]],
      ["<=7", [7, -4]],
      ["=36", [36]],
      ["= -4", [-4]],
      [">1e2", [120]],
      [">abc", []],
      ["7", [7]],
    ] as const
  ) {
    await t.step(text, () => {
      const test = cellTest(text, true);
      assert.deepEqual(
        [36, 7, null, 120, -4].filter((cell) => test(cell)),
        matches,
      );
    });
  }
  await t.step("operators are text in a text column", () => {
    assert.equal(cellTest(">7", false)("a >7 b"), true);
    assert.equal(cellTest(">7", false)("8"), false);
  });
});

Deno.test("cellTest() reads a long comparison in linear time", () => {
  // A URL of /api/table.csv holds up to 64 KB: before, a filter of ">" and 60,000
  // digits then an "x" backtracked for 4.6 s, holding up every request.
  const digits = "1".repeat(60_000);
  for (
    const [text, matches7] of [[`>${digits}x`, false], [
      `<${digits}.5`,
      true,
    ]] as const
  ) {
    const started = performance.now();
    const test = cellTest(text, true);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 500, `${elapsed} ms`);
    assert.equal(test(7), matches7, text.slice(-3));
  }
});

Deno.test("isNumericColumn() needs numbers only, and at least one", () => {
  assert.equal(isNumericColumn(table.rows, 1), true);
  assert.equal(isNumericColumn(table.rows, 0), false);
  assert.equal(isNumericColumn([[null], [null]], 0), false);
  assert.equal(isNumericColumn([[1], ["2"]], 0), false);
});

Deno.test("viewRows() combines the global filter with the column filters", () => {
  assert.deepEqual(names(viewRows(table, view({ filter: "LEEDS" }))), [
    "Ada",
    "Zoë",
  ]);
  assert.deepEqual(
    names(viewRows(
      table,
      view({ filter: "leeds", columnFilters: new Map([["age", ">0"]]) }),
    )),
    ["Ada"],
  );
  assert.deepEqual(
    names(viewRows(
      table,
      view({ columnFilters: new Map([["name", "a"], ["note", "item"]]) }),
    )),
    [],
  );
  assert.deepEqual(
    names(viewRows(table, view({ columnFilters: new Map([["age", "<0"]]) }))),
    ["Ada"],
  );
});

Deno.test("viewRows() sorts numbers by value, text naturally, empty cells last both ways", () => {
  const byAge = (order: "ascending" | "descending") =>
    viewRows(table, view({ sort: { column: "age", order } })).rows.map((r) =>
      r[1]
    );
  assert.deepEqual(byAge("ascending"), [-4, 7, 36, 120, null]);
  assert.deepEqual(byAge("descending"), [120, 36, 7, -4, null]);
  const byNote = viewRows(
    table,
    view({ sort: { column: "note", order: "ascending" } }),
  ).rows.map((r) => r[3]);
  assert.deepEqual(byNote, ["=SUM(A1)", "item 2", "item 10", "x", null]);
  const byName = viewRows(
    table,
    view({ sort: { column: "name", order: "descending" } }),
  );
  assert.deepEqual(names(byName), ["Zoë", "émile", "bob", "Ada", "Ada"]);
  assert.deepEqual(
    byName.rows.slice(3).map((r) => r[1]),
    [36, -4],
    "ties keep the API's order",
  );
});

Deno.test("viewRows() leaves hidden columns out of the columns, filters and sort", () => {
  const result = viewRows(
    table,
    view({
      hidden: ["city", "nothing"],
      filter: "leeds",
      columnFilters: new Map([["city", "york"]]),
      sort: { column: "city", order: "ascending" },
    }),
  );
  assert.deepEqual(result.visible, [0, 1, 3]);
  assert.equal(result.sort, null);
  assert.deepEqual(result.rows, [], "the global filter sees shown cells only");
  assert.deepEqual(
    viewRows(table, view({ hidden: ["city"] })).rows,
    table.rows,
  );
});

Deno.test("viewRows() keeps the first column when every column is hidden", () => {
  assert.deepEqual(
    viewRows(table, view({ hidden: [...table.columns] })).visible,
    [0],
  );
  assert.deepEqual(
    viewRows({ columns: [], rows: [] }, view({ hidden: ["a"] })).visible,
    [],
  );
});

Deno.test("viewRows() ignores filters and sorts of unknown columns", () => {
  const result = viewRows(
    table,
    view({
      columnFilters: new Map([["gone", "x"]]),
      sort: { column: "gone", order: "ascending" },
    }),
  );
  assert.deepEqual(result.rows, table.rows);
  assert.equal(result.sort, null);
});

Deno.test("pageOf() delimits the page and falls back to the last page", () => {
  assert.deepEqual(pageOf(60, view({ page: 1 })), {
    page: 1,
    pages: 3,
    start: 25,
    end: 50,
  });
  assert.deepEqual(pageOf(60, view({ page: 9 })), {
    page: 2,
    pages: 3,
    start: 50,
    end: 60,
  });
  assert.deepEqual(pageOf(0, view({ page: 3 })), {
    page: 0,
    pages: 1,
    start: 0,
    end: 0,
  });
});

Deno.test("viewScript() is self-contained: evaluated alone it gives what the server gives", () => {
  const embedded = new Function(
    `"use strict";\n${viewScript()}\nreturn { readView, viewRows };`,
  )() as { readView: typeof readView; viewRows: typeof viewRows };
  for (
    const query of [
      "",
      "filter=a&sort=name&order=desc",
      "filter.age=%3E0&sort=age&hide=city",
      "filter.note=item&sort=note",
    ]
  ) {
    const params = new URLSearchParams(query);
    const mine = readView(params).view;
    const theirs = embedded.readView(params).view;
    assert.deepEqual(theirs, mine, query);
    assert.deepEqual(embedded.viewRows(table, theirs), viewRows(table, mine));
  }
});
