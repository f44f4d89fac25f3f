import assert from "node:assert/strict";
import { parseCsv } from "./_test_csv.ts";
import { csvField, toCsv } from "./to_csv.ts";
import type { Cell } from "./to_table.ts";

Deno.test("csvField() writes plain text, numbers, booleans and null as they are", () => {
  assert.equal(csvField("Ada Thornbury"), "Ada Thornbury");
  assert.equal(csvField(42), "42");
  assert.equal(csvField(-3.5), "-3.5", "a number is never a formula");
  assert.equal(csvField(true), "true");
  assert.equal(csvField(null), "");
  assert.equal(csvField("Zoë Ærøskøbing"), "Zoë Ærøskøbing");
});

Deno.test("csvField() quotes commas, quotes and line breaks, doubling the quotes", () => {
  assert.equal(csvField("a,b"), '"a,b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField("line 1\nline 2"), '"line 1\nline 2"');
  assert.equal(csvField("cr\rhere"), '"cr\rhere"');
});

Deno.test("csvField() prefixes text a spreadsheet would run as a formula", async (t) => {
  for (
    const [cell, field] of [
      ["=SUM(A1:A9)", "'=SUM(A1:A9)"],
      ["+1 200-100-1000", "'+1 200-100-1000"],
      ["-2+3", "'-2+3"],
      ["@SUM(A1)", "'@SUM(A1)"],
      ["\t=1", "'\t=1"],
      ['=HYPERLINK("http://x","a,b")', `"'=HYPERLINK(""http://x"",""a,b"")"`],
      ["a=b", "a=b"],
      ["'quoted", "'quoted"],
    ] as const
  ) {
    await t.step(JSON.stringify(cell), () => {
      assert.equal(csvField(cell), field);
    });
  }
});

Deno.test("toCsv() writes a BOM, the header and CRLF-ended records that read back", () => {
  const rows: Cell[][] = [
    ["Zoë", 7, null],
    ["=1+1", -2, 'quote " and, comma'],
    ["two\r\nlines", 0.5, true],
  ];
  const csv = toCsv(["name", "score", "@note"], rows);
  assert.ok(csv.startsWith("\uFEFFname,score,'@note\r\n"));
  assert.ok(csv.endsWith("\r\n"));
  assert.deepEqual(parseCsv(csv.slice(1)), [
    ["name", "score", "'@note"],
    ["Zoë", "7", ""],
    ["'=1+1", "-2", 'quote " and, comma'],
    ["two\r\nlines", "0.5", "true"],
  ]);
  const bytes = new TextEncoder().encode(csv);
  assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf], "UTF-8 BOM");
});

Deno.test("toCsv() writes only the header for no rows", () => {
  assert.equal(toCsv(["a", "b"], []), "\uFEFFa,b\r\n");
});
