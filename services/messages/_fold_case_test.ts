import assert from "node:assert/strict";
import { foldCase, postgresFold } from "./_fold_case.ts";

Deno.test("foldCase() lower-cases as toLowerCase(), every sigma as σ", async (t) => {
  await t.step("every sigma is σ, so a prefix is found in the word", () => {
    assert.equal(foldCase("ΣΊΣ"), "σίσ");
    assert.equal(foldCase("ΣΊΣΥΦΟΣ rolls"), "σίσυφοσ rolls");
    assert.equal(foldCase("σίσυφος"), "σίσυφοσ");
    assert.ok(foldCase("ΣΊΣΥΦΟΣ").includes(foldCase("ΣΊΣ")));
  });
  await t.step("İ is i̇ (i and U+0307), as toLowerCase() has it", () => {
    assert.equal(foldCase("İstanbul"), "i\u0307stanbul");
    assert.ok(!foldCase("Émile").includes(foldCase("İ")));
  });
  await t.step("other letters as toLowerCase()", () => {
    assert.equal(foldCase("ÉMILE ǅ Ω ＡＢ"), "émile ǆ ω ａｂ");
  });
});

Deno.test("postgresFold() spells İ as i̇ before lower() and maps ς to σ after", () => {
  assert.equal(
    postgresFold("author"),
    "translate(lower(replace(author, 'İ', 'i̇')), 'ς', 'σ')",
  );
});
