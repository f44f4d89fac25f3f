/**
 * The table page's script: loads `api/table`, then sorts, filters and pages in the
 * browser. Kept as a string so `deno compile` embeds it; it builds the DOM with
 * `textContent` only, never HTML from the data.
 *
 * @module
 */

/** The browser script of the table page. */
export const PAGE_SCRIPT = `"use strict";
(() => {
  const NOTICE_MIN_MS = 1000;
  const $ = (id) => document.getElementById(id);
  const ui = {
    refresh: $("refresh"), filter: $("filter"), updated: $("updated"),
    notice: $("notice"), error: $("error"), state: $("state"), table: $("data"),
    head: document.querySelector("#data thead tr"), body: document.querySelector("#data tbody"),
    pager: $("pager"), prev: $("prev"), next: $("next"), pageInfo: $("page-info"), pageSize: $("page-size"),
  };
  const view = { columns: [], rows: [], sort: null, filter: "", page: 0, pageSize: 25 };
  let request = null;

  const show = (cell) => cell === null ? "" : String(cell);
  const compare = (a, b) => {
    if (a === b) return 0;
    if (a === null) return 1;
    if (b === null) return -1;
    if (typeof a === "number" && typeof b === "number") return a - b;
    return show(a).localeCompare(show(b), undefined, { numeric: true, sensitivity: "base" });
  };

  function visibleRows() {
    const needle = view.filter.trim().toLowerCase();
    let rows = needle === "" ? view.rows.slice()
      : view.rows.filter((row) => row.some((cell) => show(cell).toLowerCase().includes(needle)));
    if (view.sort) {
      const { index, direction } = view.sort;
      rows = rows.map((row, i) => [row, i])
        .sort(([a, i], [b, j]) => {
          const order = compare(a[index], b[index]);
          if (a[index] === null || b[index] === null) return order || i - j;
          return (direction === "ascending" ? order : -order) || i - j;
        })
        .map(([row]) => row);
    }
    return rows;
  }

  function renderHead() {
    ui.head.replaceChildren(...view.columns.map((name, index) => {
      const th = document.createElement("th");
      th.scope = "col";
      if (view.sort && view.sort.index === index) th.setAttribute("aria-sort", view.sort.direction);
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = name;
      button.addEventListener("click", () => sortBy(index));
      th.append(button);
      return th;
    }));
  }

  function render() {
    renderHead();
    const rows = visibleRows();
    const pages = Math.max(1, Math.ceil(rows.length / view.pageSize));
    view.page = Math.min(view.page, pages - 1);
    const start = view.page * view.pageSize;
    const shown = rows.slice(start, start + view.pageSize);
    ui.body.replaceChildren(...shown.map((row) => {
      const tr = document.createElement("tr");
      for (const cell of row) {
        const td = document.createElement("td");
        td.textContent = show(cell);
        if (typeof cell === "number") td.className = "number";
        tr.append(td);
      }
      return tr;
    }));
    const empty = view.rows.length === 0;
    ui.table.hidden = empty || view.columns.length === 0;
    ui.state.textContent = empty ? "The data API returned no rows."
      : rows.length === 0 ? "No rows match the filter." : "";
    ui.pager.hidden = empty;
    ui.pageInfo.textContent = rows.length === 0 ? "No rows"
      : "Rows " + (start + 1) + "-" + (start + shown.length) + " of " + rows.length +
        (rows.length < view.rows.length ? " (filtered from " + view.rows.length + ")" : "") +
        ", page " + (view.page + 1) + " of " + pages;
    ui.prev.disabled = view.page === 0;
    ui.next.disabled = view.page >= pages - 1;
  }

  function sortBy(index) {
    const same = view.sort && view.sort.index === index;
    view.sort = { index, direction: same && view.sort.direction === "ascending" ? "descending" : "ascending" };
    view.page = 0;
    render();
    ui.head.children[index]?.querySelector("button")?.focus();
  }

  function showError(message) {
    view.columns = [];
    view.rows = [];
    render();
    ui.state.textContent = "";
    ui.updated.textContent = "";
    ui.error.textContent = "Could not load the data: " + message;
    ui.error.hidden = false;
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
          : "the table server answered HTTP " + response.status);
      }
      if (view.sort && view.sort.index >= body.columns.length) view.sort = null;
      view.columns = body.columns;
      view.rows = body.rows;
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
      }
    }
  }

  ui.refresh.addEventListener("click", () => load({ notice: true }));
  ui.filter.addEventListener("input", () => { view.filter = ui.filter.value; view.page = 0; render(); });
  ui.pageSize.addEventListener("change", () => { view.pageSize = Number(ui.pageSize.value); view.page = 0; render(); });
  ui.prev.addEventListener("click", () => { view.page -= 1; render(); });
  ui.next.addEventListener("click", () => { view.page += 1; render(); });
  load({ notice: false });
})();
`;
