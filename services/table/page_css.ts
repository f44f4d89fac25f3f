/**
 * The table page's style sheet, kept as a string so `deno compile` embeds it.
 *
 * @module
 */

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
