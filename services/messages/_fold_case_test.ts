import assert from "node:assert/strict";
import { foldCase, postgresFold } from "./_fold_case.ts";

Deno.test("foldCase() folds letter by letter, whatever the neighbours", async (t) => {
  await t.step("every sigma is σ, so a prefix is found in the word", () => {
    assert.equal(foldCase("ΣΊΣ"), "σίσ");
    assert.equal(foldCase("ΣΊΣΥΦΟΣ rolls"), "σίσυφοσ rolls");
    assert.equal(foldCase("σίσυφος"), "σίσυφοσ");
    assert.ok(foldCase("ΣΊΣΥΦΟΣ").includes(foldCase("ΣΊΣ")));
  });
  await t.step("İ is one i, as in PostgreSQL's lower()", () => {
    assert.equal(foldCase("İstanbul"), "istanbul");
    assert.equal(foldCase("İ").length, 1);
  });
  await t.step("other letters as toLowerCase()", () => {
    assert.equal(foldCase("ÉMILE ǅ Ω ＡＢ"), "émile ǆ ω ａｂ");
  });
});

Deno.test("postgresFold() maps ς to σ after lower()", () => {
  assert.equal(postgresFold("author"), "translate(lower(author), 'ς', 'σ')");
});
