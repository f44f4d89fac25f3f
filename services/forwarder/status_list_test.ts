import assert from "node:assert/strict";
import { parseStatusList, statusList } from "./status_list.ts";

Deno.test("parseStatusList()", async (t) => {
  await t.step("reads single statuses and inclusive ranges", () => {
    const set = parseStatusList("429, 500-503");
    assert.deepEqual([...set].sort(), [429, 500, 501, 502, 503]);
  });
  await t.step("ignores empty items", () => {
    assert.equal(parseStatusList(" , ").size, 0);
  });
  await t.step("throws naming the item when it is not a status", () => {
    assert.throws(() => parseStatusList("429,abc"), /"abc" is neither/);
    assert.throws(() => parseStatusList("600"), /"600"/);
    assert.throws(() => parseStatusList("599-500"), /"599-500"/);
  });
});

Deno.test("statusList() reads as an empty set when unset", () => {
  const setting = statusList({ description: "Retry statuses" });
  assert.equal(setting.read(undefined).size, 0);
  assert.equal(setting.defaultText, "none");
  assert.equal(setting.read("404").has(404), true);
});
