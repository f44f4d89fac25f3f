import assert from "node:assert/strict";
import { flattenRecord, toTable } from "./to_table.ts";
import { TableTooLargeError } from "./table_too_large_error.ts";

Deno.test("toTable() gives one row per object, columns in first-seen order", () => {
  assert.deepEqual(
    toTable([{ name: "Ada", phone: "+1 200-100-1000" }, {
      phone: "x",
      age: 3,
    }]),
    {
      columns: ["name", "phone", "age"],
      rows: [["Ada", "+1 200-100-1000", null], [null, "x", 3]],
    },
  );
});

Deno.test("toTable() flattens nested objects into dotted columns", () => {
  assert.deepEqual(
    toTable([
      { id: 1, address: { city: "Leeds", geo: { lat: 53.8, lng: -1.5 } } },
      { id: 2, address: { city: "York" }, tags: ["a", "b"], extra: {} },
    ]),
    {
      columns: [
        "id",
        "address.city",
        "address.geo.lat",
        "address.geo.lng",
        "tags",
        "extra",
      ],
      rows: [
        [1, "Leeds", 53.8, -1.5, null, null],
        [2, "York", null, null, '["a","b"]', "{}"],
      ],
    },
  );
});

Deno.test("toTable() uses the data member of an object", () => {
  assert.deepEqual(toTable({ data: [{ a: 1 }], total: 1 }), {
    columns: ["a"],
    rows: [[1]],
  });
  assert.deepEqual(toTable({ data: { a: { b: true } } }), {
    columns: ["a.b"],
    rows: [[true]],
  });
  assert.deepEqual(toTable({ data: "hello" }), {
    columns: ["value"],
    rows: [["hello"]],
  });
});

Deno.test("toTable() turns values that are not tables into tables", async (t) => {
  await t.step("a scalar: one row, one column value", () => {
    assert.deepEqual(toTable(42), { columns: ["value"], rows: [[42]] });
    assert.deepEqual(toTable("ok"), { columns: ["value"], rows: [["ok"]] });
    assert.deepEqual(toTable(false), { columns: ["value"], rows: [[false]] });
  });
  await t.step("an array of scalars: column value", () => {
    assert.deepEqual(toTable([1, "two", null]), {
      columns: ["value"],
      rows: [[1], ["two"], [null]],
    });
  });
  await t.step("an array of arrays: columns V1, V2...", () => {
    assert.deepEqual(toTable([[1, 2], [3, 4, 5]]), {
      columns: ["V1", "V2", "V3"],
      rows: [[1, 2, null], [3, 4, 5]],
    });
  });
  await t.step("an object without data: one row", () => {
    assert.deepEqual(toTable({ a: 1, b: { c: "d" } }), {
      columns: ["a", "b.c"],
      rows: [[1, "d"]],
    });
  });
  await t.step("null and an empty array: no rows", () => {
    assert.deepEqual(toTable(null), { columns: ["value"], rows: [] });
    assert.deepEqual(toTable([]), { columns: [], rows: [] });
  });
});

Deno.test("toTable() gives an empty cell for a number past a double, as the page gets it", () => {
  const reply = JSON.parse('[{"n": 1e400, "m": [-1e400]}, {"n": 2}]');
  const table = toTable(reply);
  assert.deepEqual(table.rows, [[null, "[null]"], [2, null]]);
  assert.deepEqual(JSON.parse(JSON.stringify(table)), table);
  assert.deepEqual(toTable(JSON.parse("-1e999")).rows, [[null]]);
});

Deno.test("flattenRecord() joins nested names with dots", () => {
  assert.deepEqual(
    [...flattenRecord({ a: { b: { c: 1 } }, d: null })],
    [["a.b.c", 1], ["d", null]],
  );
});

Deno.test("flattenRecord() keeps an object nested past 32 levels as one cell", () => {
  // 5,000 levels, as a hostile or broken data API may send: no stack overflow.
  let deep: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < 5000; i++) deep = { a: deep };
  const flat = flattenRecord(deep);
  assert.equal(flat.size, 1);
  const [name, cell] = [...flat][0]!;
  assert.equal(name, Array(33).fill("a").join("."));
  assert.equal(typeof cell, "string");
  assert.ok((cell as string).startsWith('{"a":{"a":'));
});

Deno.test("toTable() refuses a table of more than maxCells cells before building it", async (t) => {
  await t.step("records with keys of their own: rows × columns counts", () => {
    // 3 rows, 3 columns, 9 cells (6 of them empty) from 3 one-key records.
    const reply = [{ a: 1 }, { b: 2 }, { c: 3 }];
    assert.throws(
      () => toTable(reply, { maxCells: 8 }),
      (error: unknown) =>
        error instanceof TableTooLargeError &&
        error.code === "TABLE_TOO_LARGE" && error.rows === 3 &&
        error.columns === 3 && error.maxCells === 8,
    );
    assert.equal(toTable(reply, { maxCells: 9 }).rows.length, 3);
  });
  await t.step("20,000 records, each its own key: refused at once", () => {
    const reply = Array.from({ length: 20_000 }, (_, i) => ({ [`k${i}`]: i }));
    const started = performance.now();
    assert.throws(
      () => toTable(reply, { maxCells: 64 * 1024 * 1024 }),
      TableTooLargeError,
    );
    // Building its 400,000,000 cells took a minute and 5 GB before the bound.
    assert.ok(performance.now() - started < 5_000);
  });
});
