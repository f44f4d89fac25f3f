/**
 * The table page's markup and style, served by the role itself (no CDN: the page
 * works offline). Kept as strings so `deno compile` embeds them.
 *
 * @module
 */

/** The page: a refresh button, a filter, the table, paging and a status notice. */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Data table</title>
<link rel="stylesheet" href="page.css">
<script src="page.js" defer></script>
</head>
<body>
<main>
<h1>Data table</h1>
<div class="toolbar">
<button id="refresh" type="button">Refresh data</button>
<label for="filter">Filter</label>
<input id="filter" type="search" autocomplete="off" placeholder="Type to filter rows">
<span id="updated" class="muted"></span>
</div>
<p id="notice" class="notice" role="status" aria-live="polite"></p>
<p id="error" class="error" role="alert" hidden></p>
<p id="state" class="state">Loading data...</p>
<div class="scroll">
<table id="data" hidden>
<caption class="visually-hidden">Data from the API; select a column header to sort</caption>
<thead><tr></tr></thead>
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

/** The page's style sheet. */
export const PAGE_CSS =
  `:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0; }
[hidden] { display: none !important; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
.toolbar, .pager { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin: 0.5rem 0; }
button, input, select { font: inherit; padding: 0.3rem 0.6rem; }
button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #4a90d9; outline-offset: 1px; }
.muted { color: GrayText; font-size: 0.9em; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #8884; padding: 0.35rem 0.6rem; text-align: left; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
th button { all: unset; cursor: pointer; font-weight: 600; }
th button:focus-visible { outline: 3px solid #4a90d9; }
th[aria-sort="ascending"] button::after { content: " \\25B2"; }
th[aria-sort="descending"] button::after { content: " \\25BC"; }
tbody tr:nth-child(even) { background: #8881; }
.notice { position: fixed; right: 1rem; bottom: 1rem; margin: 0; padding: 0.6rem 1rem; border-radius: 4px; background: #333; color: #fff; }
.notice:empty { display: none; }
.error { border-left: 4px solid #c62828; background: #c628281a; padding: 0.6rem 1rem; }
.state { font-style: italic; }
.state:empty { display: none; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;
