/**
 * `deno task docs`: writes each role's settings table into its page under `docs/`
 * (between the settings markers) and writes `.env.example`, both from the settings
 * definitions, then formats the pages with `deno fmt`. Run it after adding or
 * changing a setting; `tests/docs_test.ts` fails until it has run.
 *
 * @module
 */
import { processSettings } from "../program/process_settings.ts";
import {
  envExample,
  SETTINGS_BEGIN,
  SETTINGS_END,
  type SettingsSection,
  settingsTable,
  withSettingsTable,
} from "../program/settings_docs.ts";
import { ROLES } from "../program/roles.ts";
import { seriesTable, withSeriesTable } from "../program/series_docs.ts";

/** The page holding the generated series table ("Watching homewire"). */
export const SERIES_PAGE = "docs/running.md";

/** A page whose settings table is generated, and the settings it shows. */
export interface SettingsPage {
  /** Path from the repository root (`docs/messages.md`). */
  path: string;
  /** The settings of its table. */
  section: SettingsSection;
}

/** The settings every role shares, documented on `docs/running.md`. */
export const SHARED_SECTION: SettingsSection = {
  name: "all roles",
  settings: processSettings,
};

/** Every page with a generated settings table: one per role, and the shared page. */
export const SETTINGS_PAGES: readonly SettingsPage[] = [
  { path: "docs/running.md", section: SHARED_SECTION },
  ...ROLES.map((role) => ({
    path: `docs/${role.name}.md`,
    section: {
      name: role.name,
      settings: role.settings,
      patterns: role.patterns,
    },
  })),
];

/**
 * The generated files, as they should read, keyed by path from the root. A role
 * without a page gets one, and a page without the settings markers gets a
 * "Settings" section at its end, so that a new role or a new page never stops the
 * generator; a page with the markers twice is an error (which table is meant?).
 */
export async function expectedFiles(root: URL): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const page of SETTINGS_PAGES) {
    let current = await readIfExists(new URL(page.path, root)) ??
      `# ${page.section.name}\n`;
    if (!current.includes(SETTINGS_BEGIN) && !current.includes(SETTINGS_END)) {
      current =
        `${current.trimEnd()}\n\n## Settings\n\n${SETTINGS_BEGIN}\n${SETTINGS_END}\n`;
    }
    try {
      files.set(
        page.path,
        withSettingsTable(
          current,
          settingsTable(page.section.settings, page.section.patterns),
        ),
      );
    } catch (error) {
      throw new Error(`${page.path}: ${(error as Error).message}`);
    }
  }
  files.set(
    SERIES_PAGE,
    withSeriesTable(files.get(SERIES_PAGE)!, seriesTable(ROLES)),
  );
  files.set(
    ".env.example",
    envExample([
      SHARED_SECTION,
      ...SETTINGS_PAGES.slice(1).map((p) => p.section),
    ]),
  );
  return files;
}

async function readIfExists(url: URL): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(url);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

if (import.meta.main) {
  const root = new URL("../", import.meta.url);
  const written: string[] = [];
  for (const [path, content] of await expectedFiles(root)) {
    const url = new URL(path, root);
    if ((await readIfExists(url)) === content) continue;
    await Deno.writeTextFile(url, content);
    written.push(path);
  }
  const pages = written.filter((path) => path.endsWith(".md"));
  if (pages.length > 0) {
    const { success } = await new Deno.Command(Deno.execPath(), {
      args: ["fmt", "--quiet", ...pages],
      cwd: root,
    }).output();
    if (!success) throw new Error(`deno fmt failed on ${pages.join(", ")}`);
  }
  console.log(
    written.length === 0
      ? "docs: up to date"
      : `docs: wrote ${written.join(", ")}`,
  );
}
