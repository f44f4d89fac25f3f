/**
 * The table page's style sheet, kept as a string so `deno compile` embeds it. A light
 * scheme, and a dark one under `prefers-color-scheme: dark`.
 *
 * @module
 */

/** The page's style sheet. */
export const PAGE_CSS = `:root {
  color-scheme: light dark; font-family: system-ui, sans-serif;
  --bg: #ffffff; --fg: #1b1f24; --muted: #59636e; --line: #d0d7de; --stripe: #f3f5f7;
  --panel: #ffffff; --accent: #0b62c4; --focus: #1f6feb; --error: #b3261e; --error-bg: #fdecea;
  --notice-bg: #24292f; --notice-fg: #ffffff; --button-bg: #f6f8fa;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1317; --fg: #e6edf3; --muted: #9da7b3; --line: #3a434d; --stripe: #161b22;
    --panel: #1c2128; --accent: #6cb6ff; --focus: #58a6ff; --error: #ff8a80; --error-bg: #3b1716;
    --notice-bg: #e6edf3; --notice-fg: #0f1317; --button-bg: #21262d;
  }
}
body { margin: 0; background: var(--bg); color: var(--fg); }
[hidden] { display: none !important; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
.toolbar, .pager { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin: 0.5rem 0; }
button, input, select, .button, summary { font: inherit; padding: 0.3rem 0.6rem; color: var(--fg); }
button, select, .button, summary, input[type="search"] { background: var(--button-bg); border: 1px solid var(--line); border-radius: 4px; }
button:disabled { opacity: 0.55; }
.button { text-decoration: none; display: inline-block; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 1px; }
.muted { color: var(--muted); font-size: 0.9em; }
.columns { position: relative; }
.columns summary { cursor: pointer; list-style: none; }
.columns summary::after { content: " \\25BE"; }
.columns fieldset { position: absolute; z-index: 2; margin: 0.25rem 0 0; min-width: 12rem; max-height: 60vh; overflow: auto; padding: 0.5rem 0.75rem; background: var(--panel); border: 1px solid var(--line); border-radius: 4px; box-shadow: 0 4px 12px #0004; }
.columns legend { font-weight: 600; padding: 0; float: left; margin-bottom: 0.25rem; }
.columns label { display: flex; gap: 0.4rem; align-items: center; clear: left; padding: 0.15rem 0; white-space: nowrap; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 0.35rem 0.6rem; text-align: left; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
th.number { text-align: right; }
th button { all: unset; cursor: pointer; font-weight: 600; }
th button:focus-visible { outline: 3px solid var(--focus); }
th[aria-sort="ascending"] button::after { content: " \\25B2"; }
th[aria-sort="descending"] button::after { content: " \\25BC"; }
.filters td { padding: 0.25rem 0.3rem; }
.filters input { width: 100%; min-width: 5rem; box-sizing: border-box; padding: 0.2rem 0.4rem; font-size: 0.9em; }
tbody tr:nth-child(even) { background: var(--stripe); }
.notice { position: fixed; right: 1rem; bottom: 1rem; margin: 0; padding: 0.6rem 1rem; border-radius: 4px; background: var(--notice-bg); color: var(--notice-fg); }
.notice:empty { display: none; }
.error { border-left: 4px solid var(--error); background: var(--error-bg); padding: 0.6rem 1rem; }
.state { font-style: italic; }
.state:empty { display: none; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;
