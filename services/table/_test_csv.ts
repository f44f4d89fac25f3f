/**
 * A reader of RFC 4180 CSV written for the tests, so the table's CSV writer is
 * checked by reading its output back.
 *
 * @module
 */
import assert from "node:assert/strict";

/** Reads CRLF-ended RFC 4180 CSV into records of fields. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") {
      record.push(field);
      field = "";
    } else if (char === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i++;
    } else field += char;
  }
  assert.equal(field, "", "the CSV ends with CRLF");
  return records;
}
