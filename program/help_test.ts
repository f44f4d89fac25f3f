import assert from "node:assert/strict";
import { defineRole } from "../lib/role.ts";
import { text } from "../lib/setting_kinds.ts";
import { helpText } from "./help.ts";

Deno.test("helpText() lists a role's settings, then its patterns", () => {
  const role = defineRole({
    name: "pat",
    summary: "reads X_<NAME> for each name of NAMES",
    settings: { NAMES: text({ description: "Names", default: "a" }) },
    patterns: { "X_<NAME>": "A value per name" },
    start: () => Promise.resolve({ stop: () => Promise.resolve() }),
  });
  const lines = helpText([role], {}).split("\n");
  const at = lines.indexOf("  pat:");
  assert.deepEqual(lines.slice(at + 1, at + 3), [
    "    NAMES     Names (default a)",
    "    X_<NAME>  A value per name (optional)",
  ]);
});
