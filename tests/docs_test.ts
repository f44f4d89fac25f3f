/**
 * Every setting a role reads is documented in `.env.example` and the README.
 */
import assert from "node:assert/strict";
import { loggingSettings } from "../lib/logging.ts";
import { ROLES } from "../roles.ts";

const root = new URL("../", import.meta.url);
const envExample = await Deno.readTextFile(new URL(".env.example", root));
const readme = await Deno.readTextFile(new URL("README.md", root));

const documented = new Set(
  envExample.split("\n")
    .map((line) => /^#?\s?([A-Z][A-Z0-9_]*)=/.exec(line)?.[1])
    .filter((name) => name !== undefined),
);

const settings = [
  ...Object.entries(loggingSettings),
  ...ROLES.flatMap((role) => Object.entries(role.settings)),
];

Deno.test(".env.example lists every setting with its default", () => {
  const missing = settings.filter(([name]) => !documented.has(name)).map((
    [name],
  ) => name);
  assert.deepEqual(missing, []);
  for (const [name, setting] of settings) {
    if (setting.defaultText === undefined || setting.secret) continue;
    const line = envExample.split("\n").find((l) => l.startsWith(`${name}=`));
    assert.ok(line !== undefined, `${name} has a default but is commented out`);
    const value = line.slice(name.length + 1);
    const expected = setting.defaultText === "none" ? "" : setting.defaultText;
    assert.equal(value, expected, `default of ${name}`);
  }
});

Deno.test("the README names every setting", () => {
  const missing = settings.filter(([name]) => !readme.includes(name)).map((
    [name],
  ) => name);
  assert.deepEqual(missing, []);
});
