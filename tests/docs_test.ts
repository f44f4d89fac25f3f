/**
 * The generated settings documentation is up to date: each role's page shows the
 * table `deno task docs` writes from the role's settings definitions, and
 * `.env.example` is exactly what it writes. Every relative link of the README,
 * `docs/` and the folders' notes leads to a file (and heading) of the repository.
 */
import assert from "node:assert/strict";
import { settingsBlock } from "../program/settings_docs.ts";
import { loadEnv } from "../program/env_file.ts";
import { expectedFiles, SERIES_PAGE, SETTINGS_PAGES } from "../scripts/docs.ts";
import { SERIES_BEGIN, SERIES_END } from "../program/series_docs.ts";
import { headingAnchors, markdownLinks } from "./_test_markdown.ts";

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

Deno.test("docs/running.md lists the series as the code registers them", async () => {
  const block = (page: string) => {
    const begin = page.indexOf(SERIES_BEGIN);
    const end = page.indexOf(SERIES_END);
    assert.ok(
      begin >= 0 && end > begin,
      `${SERIES_PAGE}: no series table: ${RUN}`,
    );
    return page.slice(begin + SERIES_BEGIN.length, end).trim();
  };
  const expected = (await expectedFiles(root)).get(SERIES_PAGE)!;
  const current = await Deno.readTextFile(new URL(SERIES_PAGE, root));
  assert.deepEqual(
    cells(block(current)),
    cells(block(expected)),
    `${SERIES_PAGE} lists series that differ from the code's: ${RUN}`,
  );
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

/** The pages a reader follows links through: the README, docs/, the folders' notes. */
async function markdownPages(): Promise<string[]> {
  const pages = ["README.md"];
  for await (const entry of Deno.readDir(new URL("docs/", root))) {
    if (entry.isFile && entry.name.endsWith(".md")) {
      pages.push(`docs/${entry.name}`);
    }
  }
  for await (const entry of Deno.readDir(root)) {
    if (!entry.isDirectory || entry.name.startsWith(".")) continue;
    const note = `${entry.name}/README.md`;
    if (await Deno.stat(new URL(note, root)).catch(() => undefined)) {
      pages.push(note);
    }
  }
  return pages.sort();
}

/** Why `target`, linked from `page`, leads nowhere, or `undefined` when it resolves. */
async function brokenLink(
  page: string,
  target: string,
): Promise<string | undefined> {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return undefined; // https:, mailto:
  const [path = "", anchor] = target.split("#", 2);
  const url = new URL(path || page.split("/").pop()!, new URL(page, root));
  if (!url.href.startsWith(root.href)) return "outside the repository";
  const stat = await Deno.stat(url).catch(() => undefined);
  if (stat === undefined) return "no such file";
  if (anchor === undefined) return undefined;
  if (!url.pathname.endsWith(".md")) {
    return "an anchor in a file that is not a page";
  }
  const anchors = headingAnchors(await Deno.readTextFile(url));
  return anchors.has(decodeURIComponent(anchor))
    ? undefined
    : `no heading with the anchor #${anchor}`;
}

Deno.test("markdownLinks() and headingAnchors() read pages as GitHub does", () => {
  const page = [
    "# forwarder: queue to HTTP",
    "See [the contract](#contract), [running](running.md#logs) and",
    "[a link over",
    "two lines](deploy.md). ![diagram](img/x.png) `[code](not-a-link.md)`",
    "```sh",
    "# not a heading",
    "[nor](a-link.md)",
    "```",
    "## Contract",
    "## `GET /api/table.csv`",
    "### POST /notify (and /notify/)",
    "## Contract",
    "[ref]: ../deploy/homewire@.service",
  ].join("\n");
  assert.deepEqual(markdownLinks(page), [
    "#contract",
    "running.md#logs",
    "deploy.md",
    "img/x.png",
    "../deploy/homewire@.service",
  ]);
  assert.deepEqual([...headingAnchors(page)], [
    "forwarder-queue-to-http",
    "contract",
    "get-apitablecsv",
    "post-notify-and-notify",
    "contract-1",
  ]);
});

Deno.test("brokenLink() names a missing file, a missing anchor and a way out", async () => {
  assert.equal(await brokenLink("docs/table.md", "running.md#logs"), undefined);
  assert.equal(
    await brokenLink("README.md", "https://example.com/x"),
    undefined,
  );
  assert.equal(await brokenLink("docs/table.md", "nowhere.md"), "no such file");
  assert.equal(
    await brokenLink("docs/table.md", "running.md#nowhere"),
    "no heading with the anchor #nowhere",
  );
  assert.equal(
    await brokenLink("docs/table.md", "../../elsewhere.md"),
    "outside the repository",
  );
});

Deno.test("every relative link of the README and docs/ leads to a file and heading of the repository", async () => {
  const broken: string[] = [];
  for (const page of await markdownPages()) {
    const text = await Deno.readTextFile(new URL(page, root));
    for (const target of markdownLinks(text)) {
      const why = await brokenLink(page, target);
      if (why !== undefined) broken.push(`${page}: (${target}): ${why}`);
    }
  }
  assert.deepEqual(broken, []);
});
