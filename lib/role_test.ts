import assert from "node:assert/strict";
import { defineRole } from "./role.ts";
import { optional, SettingsError } from "./settings.ts";
import { port, text } from "./setting_kinds.ts";

const role = defineRole({
  name: "pair",
  summary: "needs A and B together",
  settings: {
    A: optional(text({ description: "A" })),
    B: optional(port({ description: "B" })),
    PORT: port({ description: "Port" }),
  },
  check: (settings, failed) =>
    failed.has("B") || (settings.A === undefined) === (settings.B === undefined)
      ? []
      : ["Missing A or B: set both or neither"],
  start: () => Promise.resolve({ stop: () => Promise.resolve() }),
});

function problemsOf(
  env: Record<string, string>,
  args: string[] = [],
): readonly string[] {
  try {
    role.prepare({ env, args, flags: new Set() });
    return [];
  } catch (error) {
    assert.ok(error instanceof SettingsError);
    return error.problems;
  }
}

Deno.test("defineRole() runs check() with the other problems", () => {
  assert.deepEqual(problemsOf({ A: "x" }), [
    "Missing PORT: Port",
    "Missing A or B: set both or neither",
  ]);
  assert.deepEqual(problemsOf({ A: "x", B: "1", PORT: "1" }), []);
});

Deno.test("defineRole() lets check() stay quiet about a setting already reported", () => {
  assert.deepEqual(problemsOf({ A: "x", B: "big", PORT: "1" }), [
    'Invalid B "big": expected an integer from 0 to 65535',
  ]);
});

Deno.test("defineRole() refuses arguments beyond maxArgs, with the other problems", () => {
  assert.deepEqual(problemsOf({ PORT: "1" }, ["extra"]), [
    'Unexpected argument "extra" for role pair: see --help for its usage',
  ]);
  assert.deepEqual(problemsOf({ PORT: "x" }, ["extra"]), [
    'Unexpected argument "extra" for role pair: see --help for its usage',
    'Invalid PORT "x": expected an integer from 0 to 65535',
  ]);
});

Deno.test("defineRole() hands check() the whole environment for the variables of its patterns", () => {
  const patterned = defineRole({
    name: "pat",
    summary: "reads X_<NAME> for each name of NAMES",
    settings: { NAMES: optional(text({ description: "Names" })) },
    patterns: { "X_<NAME>": "A value per name" },
    check: (settings, _failed, env) =>
      (settings.NAMES ?? "").split(",").filter((name) =>
        name !== "" && env[`X_${name}`] === undefined
      ).map((name) => `Missing X_${name}`),
    start: () => Promise.resolve({ stop: () => Promise.resolve() }),
  });
  assert.deepEqual(patterned.patterns, { "X_<NAME>": "A value per name" });
  assert.throws(
    () =>
      patterned.prepare({
        env: { NAMES: "A,B", X_A: "1" },
        args: [],
        flags: new Set(),
      }),
    (error: SettingsError) =>
      error.problems.length === 1 && error.problems[0] === "Missing X_B",
  );
});
