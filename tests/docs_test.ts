/**
 * Every setting a role reads is documented in `.env.example` and in the README or `docs/`.
 */
import assert from "node:assert/strict";
import { loggingSettings } from "../lib/logging.ts";
import { ROLES } from "../program/roles.ts";

const root = new URL("../", import.meta.url);
const envExample = await Deno.readTextFile(new URL(".env.example", root));
const pages = [await Deno.readTextFile(new URL("README.md", root))];
for await (const entry of Deno.readDir(new URL("docs/", root))) {
  if (entry.name.endsWith(".md")) {
    pages.push(await Deno.readTextFile(new URL(`docs/${entry.name}`, root)));
  }
}
const readme = pages.join("\n");

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

Deno.test("the README and docs/ name every setting", () => {
  const missing = settings.filter(([name]) => !readme.includes(name)).map((
    [name],
  ) => name);
  assert.deepEqual(missing, []);
});
