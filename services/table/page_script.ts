/**
 * The table page's script: loads `api/table`, then filters, sorts and pages in the
 * browser with the functions of `table_view.ts` (embedded from their source, the same
 * code `GET /api/table.csv` runs), keeps the view in the URL's query and, when the page
 * carries `data-refresh-ms`, re-fetches on that interval while the tab is visible.
 * Kept as a string so `deno compile` embeds it; it builds the DOM with `textContent`
 * only, never HTML from the data.
 *
 * @module
 */
import { viewScript } from "./table_view.ts";

const PAGE_CODE = `
  const NOTICE_MIN_MS = 1000;
  const $ = (id) => document.getElementById(id);
  const ui = {
    main: document.querySelector("main"),
    refresh: $("refresh"), filter: $("filter"), updated: $("updated"),
    columns: $("columns"), columnList: $("column-list"), download: $("download"),
    notice: $("notice"), error: $("error"), state: $("state"), table: $("data"),
    head: $("head-row"), filters: $("filter-row"), body: document.querySelector("#data tbody"),
    pager: $("pager"), prev: $("prev"), next: $("next"), pageInfo: $("page-info"), pageSize: $("page-size"),
  };
  const refreshMs = Number(ui.main.dataset.refreshMs) || 0;
  let table = { columns: [], rows: [] };
  let view = readView(new URLSearchParams(location.search)).view;
  let shownPage = 0;
  let headKey = null;
  let chooserKey = null;
  let lastEdit = null;
  let request = null;
  let refreshTimer = null;
  let refreshDue = false;
  let loaded = false;

  // The URL holds the view: a new history entry per change, one per burst of typing
  // in the same filter box.
  function remember(edit) {
    const query = writeView(view).toString();
    const url = location.pathname + (query === "" ? "" : "?" + query);
    if (url !== location.pathname + location.search) {
      if (edit !== null && edit === lastEdit) history.replaceState(null, "", url);
      else history.pushState(null, "", url);
    }
    lastEdit = edit;
  }

  function change(edit, update) {
    update();
    remember(edit);
    render();
  }

  function renderHead(shown, numeric) {
    const key = JSON.stringify([shown, numeric]);
    if (key !== headKey) {
      headKey = key;
      ui.head.replaceChildren(...shown.map((name, i) => {
        const th = document.createElement("th");
        th.scope = "col";
        if (numeric[i]) th.className = "number";
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = name;
        button.addEventListener("click", () => sortBy(name));
        th.append(button);
        return th;
      }));
      ui.filters.replaceChildren(...shown.map((name, i) => {
        const td = document.createElement("td");
        const input = document.createElement("input");
        input.type = "search";
        input.autocomplete = "off";
        input.dataset.column = name;
        input.setAttribute("aria-label", "Filter " + name);
        input.placeholder = numeric[i] ? "e.g. >= 10" : "Filter";
        input.addEventListener("input", () => change("filter." + name, () => {
          if (input.value.trim() === "") view.columnFilters.delete(name);
          else view.columnFilters.set(name, input.value);
          view.page = 0;
        }));
        td.append(input);
        return td;
      }));
    }
    [...ui.head.children].forEach((th, i) => {
      const sorted = view.sort !== null && view.sort.column === shown[i];
      th.setAttribute("aria-sort", sorted ? view.sort.order : "none");
    });
    for (const input of ui.filters.querySelectorAll("input")) {
      const text = view.columnFilters.get(input.dataset.column) ?? "";
      if (input.value.trim() !== text.trim()) input.value = text;
    }
  }

  function renderChooser(shown) {
    const key = JSON.stringify(table.columns);
    if (key !== chooserKey) {
      chooserKey = key;
      ui.columnList.replaceChildren(ui.columnList.firstElementChild, ...table.columns.map((name) => {
        const label = document.createElement("label");
        const box = document.createElement("input");
        box.type = "checkbox";
        box.dataset.column = name;
        box.addEventListener("change", () => change(null, () => {
          if (box.checked) {
            view.hidden = view.hidden.filter((hidden) => hidden !== name);
          } else {
            view.hidden.push(name);
            view.columnFilters.delete(name);
            if (view.sort !== null && view.sort.column === name) view.sort = null;
          }
        }));
        label.append(box, name);
        return label;
      }));
    }
    for (const box of ui.columnList.querySelectorAll("input")) {
      box.checked = shown.includes(box.dataset.column);
      box.disabled = box.checked && shown.length === 1;
    }
  }

  function render() {
    const { visible, rows } = viewRows(table, view);
    const shown = visible.map((index) => table.columns[index]);
    renderHead(shown, visible.map((index) => isNumericColumn(table.rows, index)));
    renderChooser(shown);
    const { page, pages, start, end } = pageOf(rows.length, view);
    shownPage = page;
    ui.body.replaceChildren(...rows.slice(start, end).map((row) => {
      const tr = document.createElement("tr");
      for (const index of visible) {
        const cell = row[index] ?? null;
        const td = document.createElement("td");
        td.textContent = cellText(cell);
        if (typeof cell === "number") td.className = "number";
        tr.append(td);
      }
      return tr;
    }));
    const empty = table.rows.length === 0;
    ui.table.hidden = empty || table.columns.length === 0;
    ui.state.textContent = empty ? "The data API returned no rows."
      : rows.length === 0 ? "No rows match the filter." : "";
    ui.pager.hidden = empty;
    ui.pageInfo.textContent = rows.length === 0 ? "No rows"
      : "Rows " + (start + 1) + "-" + end + " of " + rows.length +
        (rows.length < table.rows.length ? " (filtered from " + table.rows.length + ")" : "") +
        ", page " + (page + 1) + " of " + pages;
    ui.prev.disabled = page === 0;
    ui.next.disabled = page >= pages - 1;
    syncControls();
  }

  function syncControls() {
    if (ui.filter.value !== view.filter) ui.filter.value = view.filter;
    ui.pageSize.value = String(view.pageSize);
    const query = writeView(view).toString();
    ui.download.href = "api/table.csv" + (query === "" ? "" : "?" + query);
  }

  function sortBy(name) {
    change(null, () => {
      const same = view.sort !== null && view.sort.column === name;
      view.sort = { column: name, order: same && view.sort.order === "ascending" ? "descending" : "ascending" };
      view.page = 0;
    });
  }

  function showError(message) {
    table = { columns: [], rows: [] };
    loaded = true;
    render();
    ui.state.textContent = "";
    ui.updated.textContent = "";
    ui.error.textContent = "Could not load the data: " + message;
    ui.error.hidden = false;
  }

  function scheduleRefresh() {
    if (refreshMs <= 0) return;
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => {
      if (document.visibilityState === "visible") load({ notice: true });
      else refreshDue = true;
    }, refreshMs);
  }

  async function load({ notice }) {
    request?.abort();
    const controller = new AbortController();
    request = controller;
    const startedAt = Date.now();
    if (notice) ui.notice.textContent = "Updating...";
    ui.refresh.setAttribute("aria-busy", "true");
    try {
      const response = await fetch("api/table", {
        headers: { Accept: "application/json" }, cache: "no-store", signal: controller.signal,
      });
      const body = await response.json().catch(() => null);
      if (!response.ok) {
        throw new Error(body && typeof body.message === "string" ? body.message
          : "the table server returned HTTP " + response.status);
      }
      table = { columns: body.columns, rows: body.rows };
      loaded = true;
      ui.error.hidden = true;
      ui.error.textContent = "";
      ui.updated.textContent = "Updated at " + new Date().toLocaleTimeString();
      render();
    } catch (error) {
      if (controller.signal.aborted) return;
      showError(error instanceof Error ? error.message : String(error));
    } finally {
      if (request === controller) {
        request = null;
        ui.refresh.removeAttribute("aria-busy");
        const rest = Math.max(0, NOTICE_MIN_MS - (Date.now() - startedAt));
        setTimeout(() => { if (request === null) ui.notice.textContent = ""; }, notice ? rest : 0);
        scheduleRefresh();
      }
    }
  }

  ui.refresh.addEventListener("click", () => load({ notice: true }));
  ui.filter.addEventListener("input", () => change("filter", () => {
    view.filter = ui.filter.value;
    view.page = 0;
  }));
  ui.pageSize.addEventListener("change", () => change(null, () => {
    view.pageSize = Number(ui.pageSize.value);
    view.page = 0;
  }));
  ui.prev.addEventListener("click", () => change(null, () => { view.page = shownPage - 1; }));
  ui.next.addEventListener("click", () => change(null, () => { view.page = shownPage + 1; }));
  ui.columns.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || !ui.columns.open) return;
    ui.columns.open = false;
    ui.columns.querySelector("summary").focus();
  });
  addEventListener("popstate", () => {
    view = readView(new URLSearchParams(location.search)).view;
    lastEdit = null;
    if (loaded) render();
    else syncControls();
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState !== "visible" || !refreshDue) return;
    refreshDue = false;
    load({ notice: true });
  });
  syncControls();
  load({ notice: false });
`;

/** The browser script of the table page. */
export const PAGE_SCRIPT = `"use strict";
(() => {
${viewScript()}
${PAGE_CODE}
})();
`;
