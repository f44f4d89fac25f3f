/**
 * The table page's markup, served by the role itself (no CDN: the page works
 * offline). Kept as a string so `deno compile` embeds it.
 *
 * @module
 */

/** Options of {@linkcode pageHtml}. */
export interface PageHtmlOptions {
  /** The page re-fetches every so many milliseconds while visible; 0 is off. */
  refreshMs: number;
}

/**
 * The page: a refresh button, a filter, a column chooser, a CSV download, the table
 * with a filter per column, paging and a status notice.
 *
 * @example
 * ```ts
 * pageHtml({ refreshMs: 0 }); // "<!doctype html>..."
 * ```
 */
export function pageHtml({ refreshMs }: PageHtmlOptions): string {
  const refresh = refreshMs > 0 ? ` data-refresh-ms="${refreshMs}"` : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Data table</title>
<link rel="stylesheet" href="page.css">
<script src="page.js" defer></script>
</head>
<body>
<main${refresh}>
<h1>Data table</h1>
<div class="toolbar">
<button id="refresh" type="button">Refresh data</button>
<label for="filter">Filter</label>
<input id="filter" type="search" autocomplete="off" placeholder="Type to filter rows">
<details id="columns" class="columns">
<summary>Columns</summary>
<fieldset id="column-list"><legend>Shown columns</legend></fieldset>
</details>
<a id="download" class="button" href="api/table.csv" download="table.csv">Download CSV</a>
<span id="updated" class="muted"></span>
</div>
<p id="notice" class="notice" role="status" aria-live="polite"></p>
<p id="error" class="error" role="alert" hidden></p>
<p id="state" class="state">Loading data...</p>
<div class="scroll">
<table id="data" hidden>
<caption class="visually-hidden">Data from the API; select a column header to sort, type in the box below it to filter that column</caption>
<thead><tr id="head-row"></tr><tr id="filter-row" class="filters"></tr></thead>
<tbody></tbody>
</table>
</div>
<nav id="pager" class="pager" aria-label="Pages" hidden>
<button id="prev" type="button">Previous</button>
<span id="page-info" aria-live="polite"></span>
<button id="next" type="button">Next</button>
<label for="page-size">Rows per page</label>
<select id="page-size">
<option>10</option><option selected>25</option><option>50</option><option>100</option>
</select>
</nav>
</main>
</body>
</html>
`;
}
