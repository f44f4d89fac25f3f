/**
 * The series documentation, rendered from the code that registers them: the table
 * of `docs/running.md` between `<!-- series:begin -->` and `<!-- series:end -->`.
 * `deno task docs` writes it; `tests/docs_test.ts` fails when it is out of date.
 *
 * @module
 */
import { httpMetrics } from "../lib/metrics/http_metrics.ts";
import {
  createRegistry,
  type FamilyDescription,
} from "../lib/metrics/registry.ts";
import type { RoleDescriptor } from "../lib/role.ts";
import { processRegistry, roleStates } from "./metrics_endpoint.ts";
import { markdownTable } from "./_markdown_table.ts";

/** The marker opening the generated series table. */
export const SERIES_BEGIN = "<!-- series:begin -->";
/** The marker closing it. */
export const SERIES_END = "<!-- series:end -->";

/** Roles that serve HTTP, and so have the HTTP series. */
const HTTP_ROLES = new Set([
  "messages",
  "proxy",
  "data-api",
  "table",
  "notifier",
]);

/**
 * The Markdown table of every series: who exposes it (every process, every HTTP
 * role, one role), its name, type, labels and meaning.
 *
 * @example
 * ```ts
 * import { ROLES } from "./roles.ts";
 *
 * seriesTable(ROLES).includes("`process_open_fds`"); // true
 * ```
 */
export function seriesTable(roles: readonly RoleDescriptor[]): string {
  const rows: string[][] = [];
  const add = (who: string, families: readonly FamilyDescription[]) => {
    for (const family of families) {
      rows.push([
        who,
        `\`${family.name}\``,
        family.type,
        family.labels.map((l) => `\`${l}\``).join(", ") || "–",
        cell(family.help),
      ]);
    }
  };
  add("every process", processRegistry(roleStates([])).families());
  const http = createRegistry();
  httpMetrics(http.with({ role: "" }));
  add(
    `HTTP roles (${[...HTTP_ROLES].join(", ")})`,
    http.families(),
  );
  for (const role of roles) {
    if (!role.series) continue;
    const registry = createRegistry();
    role.series(registry.with({ role: role.name }));
    add(role.name, registry.families());
  }
  return markdownTable(["Who", "Series", "Type", "Labels", "Meaning"], rows);
}

/** `page` with the text between the series markers replaced by `table`. */
export function withSeriesTable(page: string, content: string): string {
  const begin = page.indexOf(SERIES_BEGIN);
  const end = page.indexOf(SERIES_END);
  if (begin < 0 || end < begin) {
    throw new Error(
      `Expected a "${SERIES_BEGIN}" line and a "${SERIES_END}" line after it: add them where the series table goes`,
    );
  }
  return `${page.slice(0, begin)}${SERIES_BEGIN}\n\n${content}\n\n${
    page.slice(end)
  }`;
}

function cell(text: string): string {
  return text.replace(/\s+/g, " ").replace(/[\\|<>*[\]`_]/g, (c) => `\\${c}`);
}
