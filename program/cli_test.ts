import assert from "node:assert/strict";
import { combinationProblems, parseCommandLine } from "./cli.ts";

const ROLES = [
  { name: "messages" },
  { name: "table", maxArgs: 3 },
  { name: "collector" },
];

Deno.test("parseCommandLine() gives each role the arguments that follow it", () => {
  const command = parseCommandLine(
    ["messages", "table", "3838", "0.0.0.0", "false", "--env-file", "x.env"],
    ROLES,
  );
  assert.deepEqual(command.roles, [
    { name: "messages", args: [] },
    { name: "table", args: ["3838", "0.0.0.0", "false"] },
  ]);
  assert.equal(command.envFile, "x.env");
  assert.deepEqual(command.problems, []);
});

Deno.test("parseCommandLine() reads flags anywhere", () => {
  const command = parseCommandLine([
    "--once",
    "collector",
    "--env-file=a.env",
    "-h",
  ], ROLES);
  assert.deepEqual([...command.flags], ["once"]);
  assert.equal(command.envFile, "a.env");
  assert.equal(command.help, true);
});

Deno.test("parseCommandLine() reports unknown roles, options and repeated roles", () => {
  const command = parseCommandLine([
    "bogus",
    "messages",
    "--fast",
    "messages",
    "--env-file",
  ], ROLES);
  assert.deepEqual(command.problems, [
    'Unknown role "bogus": expected one of messages, table, collector',
    'Unknown option "--fast": see --help',
    "Missing value for --env-file: give a file path",
    'Role "messages" is named twice: name it once',
  ]);
});

Deno.test("parseCommandLine() reports a word past a role's arguments as an unknown role", () => {
  const command = parseCommandLine(
    ["messages", "mesages", "table", "1", "2", "3", "tabel"],
    ROLES,
  );
  assert.deepEqual(command.roles, [
    { name: "messages", args: [] },
    { name: "table", args: ["1", "2", "3"] },
  ]);
  assert.deepEqual(command.problems, [
    'Unknown role "mesages", or an argument too many: messages takes no arguments (roles: messages, table, collector)',
    'Unknown role "tabel", or an argument too many: table takes at most 3 arguments (roles: messages, table, collector)',
  ]);
});

Deno.test("parseCommandLine() ignores a lone --", () => {
  const command = parseCommandLine(["--", "messages"], ROLES);
  assert.deepEqual(command.roles, [{ name: "messages", args: [] }]);
  assert.deepEqual(command.problems, []);
});

Deno.test("combinationProblems() keeps --once with its role, alone, and the reader alone", () => {
  const roles = [
    { name: "messages" },
    { name: "collector", flags: ["once"] },
    { name: "reader", maxArgs: 1, runsAlone: true },
  ];
  const once = new Set(["once"]);
  const named = (...names: string[]) => names.map((name) => ({ name }));
  assert.deepEqual(combinationProblems(once, named("collector"), roles), []);
  assert.deepEqual(combinationProblems(new Set(), named("reader"), roles), []);
  assert.deepEqual(combinationProblems(once, named("messages"), roles), [
    'Option "--once" applies to collector only: name that role too (collector --once)',
  ]);
  assert.deepEqual(
    combinationProblems(once, named("collector", "messages"), roles),
    [
      'Option "--once" applies to collector only: start messages in another process',
    ],
  );
  assert.deepEqual(
    combinationProblems(new Set(), named("reader", "messages"), roles),
    [
      'Role "reader" runs alone (its exit code is its verdict): start the other roles in another process',
    ],
  );
});

Deno.test("combinationProblems() runs a role alone when its runsAlone says so of its arguments", () => {
  const roles = [
    {
      name: "messages",
      maxArgs: 2,
      runsAlone: (args: readonly string[]) => args.length > 0,
    },
    { name: "proxy" },
  ];
  const none = new Set<string>();
  assert.deepEqual(
    combinationProblems(none, [
      { name: "messages", args: [] },
      { name: "proxy", args: [] },
    ], roles),
    [],
  );
  assert.deepEqual(
    combinationProblems(none, [
      { name: "messages", args: ["backup", "/tmp/copy.sqlite3"] },
      { name: "proxy", args: [] },
    ], roles),
    [
      'Role "messages" runs alone (its exit code is its verdict): start the other roles in another process',
    ],
  );
  assert.deepEqual(
    combinationProblems(none, [
      { name: "messages", args: ["backup", "/tmp/copy.sqlite3"] },
    ], roles),
    [],
  );
});
