import assert from "node:assert/strict";
import {
  escapeLabelValue,
  formatValue,
  labelText,
  negotiateFormat,
} from "./exposition.ts";

Deno.test("escapeLabelValue() escapes backslash, quote and newline", () => {
  assert.equal(escapeLabelValue("plain /a/b"), "plain /a/b");
  assert.equal(escapeLabelValue('a\\b"c\nd'), 'a\\\\b\\"c\\nd');
});

Deno.test("labelText() writes nothing for no labels", () => {
  assert.equal(labelText([], []), "");
  assert.equal(labelText(["a", "b"], ["1", "2"]), '{a="1",b="2"}');
});

Deno.test("formatValue() writes infinities and NaN as Prometheus does", () => {
  assert.equal(formatValue(NaN), "NaN");
  assert.equal(formatValue(-Infinity), "-Inf");
  assert.equal(formatValue(1.5e-7), "1.5e-7");
  assert.equal(formatValue(3), "3");
});

Deno.test("negotiateFormat() follows the scraper's Accept header", () => {
  // What Prometheus 2.x sends.
  assert.equal(
    negotiateFormat(
      "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
    ),
    "openmetrics",
  );
  assert.equal(negotiateFormat("application/openmetrics-text"), "openmetrics");
  assert.equal(
    negotiateFormat("application/openmetrics-text;version=0.0.1"),
    "text",
  );
  assert.equal(
    negotiateFormat("text/plain;q=1,application/openmetrics-text;q=0.5"),
    "text",
  );
  assert.equal(negotiateFormat("*/*"), "text");
  assert.equal(negotiateFormat(""), "text");
});
