/**
 * The Markdown tables of the generated docs (settings, metric series), padded the
 * way `deno fmt` writes them, so a generated page is already formatted.
 *
 * @module
 */

/** A Markdown table padded the way `deno fmt` writes it. */
export function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const widths = header.map((title, column) =>
    Math.max(
      3,
      width(title),
      ...rows.map((row) => width(row[column] ?? "")),
    )
  );
  const line = (cells: readonly string[]) =>
    `| ${
      cells.map((cell, i) => cell + " ".repeat(widths[i]! - width(cell))).join(
        " | ",
      )
    } |`;
  return [
    line(header),
    `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`,
    ...rows.map(line),
  ].join("\n");
}

/** Columns a cell takes: one per character (no wide characters are expected). */
function width(text: string): number {
  return [...text].length;
}
