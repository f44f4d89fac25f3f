/**
 * The generated settings documentation is up to date: each role's page shows the
 * table `deno task docs` writes from the role's settings definitions, and
 * `.env.example` is exactly what it writes.
 */
import assert from "node:assert/strict";
import { settingsBlock } from "../program/settings_docs.ts";
import { loadEnv } from "../program/env_file.ts";
import { expectedFiles, SETTINGS_PAGES } from "../scripts/docs.ts";

const root = new URL("../", import.meta.url);
const RUN = "run `deno task docs` and commit what it writes";

/** A table's cells, trimmed: `deno fmt` may pad columns its own way. */
function cells(table: string): string[][] {
  return table.split("\n")
    .filter((line) => !/^\|[\s|:-]*\|$/.test(line))
    .map((line) =>
      line.replace(/^\|/, "").replace(/\|$/, "").split(/(?<!\\)\|/)
        .map((cell) => cell.trim())
    );
}

Deno.test("each role's page shows its settings table as generated", async (t) => {
  const expected = await expectedFiles(root);
  for (const page of SETTINGS_PAGES) {
    await t.step(page.path, async () => {
      const current = await Deno.readTextFile(new URL(page.path, root))
        .catch(() => assert.fail(`${page.path} is missing: ${RUN}`));
      assert.ok(
        current.includes("<!-- settings:begin -->"),
        `${page.path} has no settings table: ${RUN}`,
      );
      assert.deepEqual(
        cells(settingsBlock(current)),
        cells(settingsBlock(expected.get(page.path)!)),
        `${page.path} shows settings that differ from their definitions: ${RUN}`,
      );
    });
  }
});

Deno.test(".env.example is as generated", async () => {
  const expected = (await expectedFiles(root)).get(".env.example")!;
  const current = await Deno.readTextFile(new URL(".env.example", root));
  assert.equal(current, expected, `.env.example is out of date: ${RUN}`);
});

Deno.test(".env.example, read as a .env file, gives every default", async () => {
  const text = (await expectedFiles(root)).get(".env.example")!;
  const { env } = loadEnv({
    env: {},
    cwd: "/",
    path: ".env.example",
    readTextFile: () => text,
  });
  for (const page of SETTINGS_PAGES) {
    for (const [name, setting] of Object.entries(page.section.settings)) {
      if (setting.secret || setting.defaultText === undefined) {
        assert.equal(env[name], undefined, `${name} has no value`);
        continue;
      }
      const expected = setting.defaultText === "none"
        ? ""
        : setting.defaultText;
      assert.equal(env[name], expected, `default of ${name}`);
      // The value given is read as the default, so copying the file changes nothing.
      assert.doesNotThrow(() => setting.read(env[name] || undefined), name);
    }
  }
});
