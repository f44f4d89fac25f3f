/**
 * End to end in Debian's Chromium (headless, puppeteer-core): the table page's views
 * (column filters, column chooser, the view in the URL, the CSV download, keyboard use,
 * auto-refresh, light and dark schemes) over a 1,000-row stand-in data API, with the
 * `table` role started through `main.ts`.
 */
import assert from "node:assert/strict";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import {
  listeningUrl,
  type MainProcess,
  requireBinary,
  startMain,
} from "./_test_helpers.ts";
import {
  allowDownloads,
  allPages,
  csvRecords,
  downloadOf,
  expectedField,
  pageInfo,
  people,
  type Person,
  shownTable,
  startStandInApi,
} from "./_test_table_page.ts";

const chromium = requireBinary("chromium", ["/usr/bin/chromium"]);
const OUTPUT = new URL("../test_output/", import.meta.url).pathname;
const COLUMNS = [
  "id",
  "name",
  "score",
  "formula",
  "note",
  "address.city",
  "updated",
];
const DATA = people(1);
const textsOf = (p: Person) => [
  String(p.id),
  p.name,
  p.score === null ? "" : String(p.score),
  p.formula,
  p.note,
  p.address.city,
  p.updated,
];
const collator = new Intl.Collator("en", {
  numeric: true,
  sensitivity: "base",
});

/** Evaluates a browser expression (a string: these suites type-check without the DOM). */
function js<T>(page: Page, expression: string): Promise<T> {
  return page.evaluate(expression) as Promise<T>;
}

/** Makes the page believe its tab is hidden or visible, as a tab switch would. */
async function visibility(page: Page, state: "hidden" | "visible") {
  await js(
    page,
    `Object.defineProperty(document, "visibilityState", {
      configurable: true, get: () => ${JSON.stringify(state)},
    });
    document.dispatchEvent(new Event("visibilitychange"));`,
  );
}

/** A property of the element `selector` selects. */
function prop<T>(page: Page, selector: string, name: string): Promise<T> {
  return js<T>(
    page,
    `document.querySelector(${JSON.stringify(selector)})[${
      JSON.stringify(name)
    }]`,
  );
}

async function openPage(browser: Browser, url: string, errors: string[]) {
  const page = await browser.newPage();
  page.on("pageerror", (error) => errors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  await page.setViewport({ width: 1200, height: 900 });
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(
    `document.querySelectorAll("#data tbody tr").length > 0`,
    { timeout: 15_000 },
  );
  return page;
}

/** Replaces the text of an input as typing would (one input event). */
async function setInput(page: Page, selector: string, text: string) {
  await js(
    page,
    `(() => {
      const input = document.querySelector(${JSON.stringify(selector)});
      for (const value of ["", ${JSON.stringify(text)}]) {
        input.value = value;
        input.dispatchEvent(new Event("input", { bubbles: true }));
      }
    })()`,
  );
}

const columnFilter = (name: string) =>
  `#filter-row input[data-column="${name}"]`;

/** Presses Tab until the focused element satisfies `test` (a browser expression). */
async function tabTo(page: Page, test: string, what: string) {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press("Tab");
    const found = await page.evaluate(
      `(() => { const el = document.activeElement; return Boolean(el && (${test})); })()`,
    );
    if (found) return;
  }
  assert.fail(`Tab never reached ${what}`);
}

async function viewOf(page: Page) {
  return {
    url: page.url(),
    table: await shownTable(page),
    info: await page.$eval("#page-info", (s) => s.textContent),
    sorts: await page.$$eval(
      "#head-row th",
      (ths) => ths.map((th) => th.getAttribute("aria-sort")),
    ),
    filters: await js<string[]>(
      page,
      `[...document.querySelectorAll("#filter, #filter-row input")].map((i) => i.value)`,
    ),
  };
}

Deno.test({
  name:
    "the table page's views in Chromium: column filters, CSV download, column chooser, URL, history, keyboard, auto-refresh, schemes",
  ignore: chromium.ignore,
  async fn(t) {
    await Deno.mkdir(OUTPUT, { recursive: true });
    const userDataDir = await Deno.makeTempDir({ prefix: "homewire-chrome-" });
    const downloads = await Deno.makeTempDir({ prefix: "homewire-csv-" });
    const api = startStandInApi();
    const env = { API_URL: api.url, API_KEY: "stand-in-key" };
    const plain = startMain(["table", "0", "127.0.0.1", "false"], { env });
    const refreshing = startMain(["table", "0", "127.0.0.1", "false"], {
      env: { ...env, TABLE_REFRESH_MS: "1000" },
    });
    const processes: MainProcess[] = [plain, refreshing];
    let browser: Browser | undefined;
    try {
      const [base, refreshingBase] = await Promise.all(
        processes.map((p) => listeningUrl(p, "table")),
      );
      browser = await puppeteer.launch({
        executablePath: chromium.path ?? "/usr/bin/chromium",
        args: [
          "--headless=new",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
          `--user-data-dir=${userDataDir}`,
        ],
      });
      const session = await allowDownloads(browser, downloads);
      const requested: string[] = [];
      const errors: string[] = [];
      const page = await openPage(browser, `${base}/`, errors);
      page.on("request", (request) => requested.push(request.url()));

      await t.step(
        "column filters, numeric comparisons included, combine with the global filter",
        async () => {
          assert.deepEqual((await shownTable(page)).headers, COLUMNS);
          assert.equal((await pageInfo(page)).total, 1000);
          assert.equal(
            await page.$eval(columnFilter("score"), (i) => i.placeholder),
            "e.g. >= 10",
          );
          const scoreCases: [string, (s: number | null) => boolean][] = [
            [">= 50", (s) => s !== null && s >= 50],
            ["<-90", (s) => s !== null && s < -90],
            ["<= -100", (s) => s !== null && s <= -100],
            [">99", (s) => s !== null && s > 99],
            ["= 0", (s) => s === 0],
            ["5", (s) => s !== null && String(s).includes("5")],
          ];
          for (const [text, keep] of scoreCases) {
            await setInput(page, columnFilter("score"), text);
            const expected = DATA.filter((p) => keep(p.score)).length;
            assert.ok(expected > 0, text);
            assert.equal((await pageInfo(page)).total, expected, text);
            for (const row of (await shownTable(page)).rows) {
              assert.ok(keep(Number(row[2]!.text)), `${text}: ${row[2]!.text}`);
            }
          }
          await setInput(page, columnFilter("score"), "");
          await setInput(page, columnFilter("name"), "É");
          const accented = DATA.filter((p) =>
            p.name.toLowerCase().includes("é")
          );
          assert.equal((await pageInfo(page)).total, accented.length);
          await setInput(page, "#filter", "LEEDS");
          await setInput(page, columnFilter("score"), ">0");
          const both = DATA.filter((p) =>
            textsOf(p).some((c) => c.toLowerCase().includes("leeds")) &&
            p.name.toLowerCase().includes("é") && p.score !== null &&
            p.score > 0
          );
          assert.ok(both.length > 0);
          assert.equal((await pageInfo(page)).total, both.length);
          for (
            const selector of [
              "#filter",
              columnFilter("name"),
              columnFilter("score"),
            ]
          ) {
            await setInput(page, selector, "");
          }
          assert.equal((await pageInfo(page)).total, 1000);
        },
      );

      await t.step(
        "Download CSV gives the filtered, sorted rows of every page",
        async () => {
          await setInput(page, columnFilter("score"), "> -50");
          await page.click("#head-row th:nth-child(2) button");
          await page.click("#head-row th:nth-child(2) button");
          assert.equal(
            await page.$eval(
              "#head-row th:nth-child(2)",
              (th) => th.getAttribute("aria-sort"),
            ),
            "descending",
          );
          await page.select("#page-size", "100");
          const shown = await allPages(page);
          const matched = DATA.filter((p) => p.score !== null && p.score > -50);
          assert.equal(shown.rows.length, matched.length);
          assert.ok(shown.rows.length > 500, "several pages of 100");
          const { name, bytes } = await downloadOf(
            session,
            downloads,
            () => page.click("#download"),
          );
          assert.equal(name, "table.csv");
          const records = csvRecords(bytes);
          assert.deepEqual(records[0], COLUMNS);
          assert.deepEqual(
            records.slice(1),
            shown.rows.map((row) => row.map(expectedField)),
          );
          const ids = records.slice(1).map((r) => Number(r[0]));
          assert.deepEqual(
            [...ids].sort((a, b) => a - b),
            matched.map((p) => p.id),
          );
          const names = records.slice(1).map((r) => r[1]!);
          for (let i = 1; i < names.length; i++) {
            assert.ok(
              collator.compare(names[i - 1]!, names[i]!) >= 0,
              String(names[i]),
            );
          }
          const fields = records.slice(1).flat();
          for (const prefix of ["'=HYPERLINK(", "'+44 20", "'@SUM(A", "'-"]) {
            assert.ok(fields.some((f) => f.startsWith(prefix)), prefix);
          }
          assert.ok(
            !fields.some((f) => /^[=+\-@]/.test(f) && !/^-\d+$/.test(f)),
          );
          assert.ok(
            records.some((r) => /^-\d+$/.test(r[2]!)),
            "numbers as numbers",
          );
          for (
            const accent of ["Zoë", "Émile", "Łukasz", "Ørjan", "Malmö", "Ōita"]
          ) {
            assert.ok(fields.some((f) => f.includes(accent)), accent);
          }
          assert.ok(
            fields.includes(`He said "hi", then left\nline 0`) ||
              fields.some((f) =>
                f.startsWith('He said "hi", then left\nline ')
              ),
          );
        },
      );

      await t.step("hiding columns changes the table and the CSV", async () => {
        await page.click("#columns summary");
        assert.deepEqual(
          await js(
            page,
            `[...document.querySelectorAll("#column-list label")].map((l) => l.textContent)`,
          ),
          COLUMNS,
        );
        await page.click(`#column-list input[data-column="note"]`);
        await page.click(`#column-list input[data-column="formula"]`);
        const kept = COLUMNS.filter((c) => c !== "note" && c !== "formula");
        assert.deepEqual((await shownTable(page)).headers, kept);
        assert.match(page.url(), /hide=note&hide=formula/);
        const { bytes } = await downloadOf(
          session,
          downloads,
          () => page.click("#download"),
        );
        const records = csvRecords(bytes);
        assert.deepEqual(records[0], kept);
        const shown = await allPages(page);
        assert.deepEqual(
          records.slice(1),
          shown.rows.map((row) => row.map(expectedField)),
        );
        for (const column of kept.filter((c) => c !== "name")) {
          await page.click(`#column-list input[data-column="${column}"]`);
        }
        assert.deepEqual((await shownTable(page)).headers, ["name"]);
        assert.equal(
          await prop(
            page,
            `#column-list input[data-column="name"]`,
            "disabled",
          ),
          true,
          "the last shown column cannot be hidden",
        );
        for (const column of kept.filter((c) => c !== "name")) {
          await page.click(`#column-list input[data-column="${column}"]`);
        }
        assert.deepEqual((await shownTable(page)).headers, kept);
        assert.equal(
          await prop(page, columnFilter("score"), "value"),
          "",
          "hiding a column dropped its filter",
        );
        assert.equal(new URL(page.url()).searchParams.get("sort"), "name");
        await page.click("#columns summary");
      });

      await t.step(
        "a copied URL opened in a new page shows the same view",
        async () => {
          await setInput(page, "#filter", "o");
          await setInput(page, columnFilter("score"), "> -50");
          await page.select("#page-size", "50");
          await page.click("#next");
          await page.click("#next");
          const view = await viewOf(page);
          const query = new URL(view.url).searchParams;
          assert.equal(query.get("sort"), "name");
          assert.equal(query.get("order"), "desc");
          assert.equal(query.get("filter"), "o");
          assert.equal(query.get("filter.score"), "> -50");
          assert.deepEqual(query.getAll("hide"), ["note", "formula"]);
          assert.equal(query.get("page"), "3");
          assert.equal(query.get("size"), "50");
          const copy = await openPage(browser!, view.url, errors);
          assert.deepEqual(await viewOf(copy), view);
          const fromLink = await prop<string>(copy, "#download", "href");
          const csv = csvRecords(
            new Uint8Array(await (await fetch(fromLink)).arrayBuffer()),
          );
          assert.deepEqual(csv[0], (await shownTable(copy)).headers);
          await copy.close();
        },
      );

      await t.step("back and forward restore the view", async () => {
        const first = await viewOf(page);
        await page.click("#head-row th:nth-child(1) button");
        const second = await viewOf(page);
        assert.notDeepEqual(second.table, first.table);
        await page.click("#next");
        const third = await viewOf(page);
        const travel = async (
          how: string | (() => Promise<unknown>),
          to: Awaited<ReturnType<typeof viewOf>>,
        ) => {
          await (typeof how === "string" ? page.evaluate(how) : how());
          await page.waitForFunction(
            `location.href === ${JSON.stringify(to.url)} &&
              document.getElementById("page-info").textContent === ${
              JSON.stringify(to.info)
            }`,
            { timeout: 5_000 },
          );
          assert.deepEqual(await viewOf(page), to);
        };
        await travel(() => page.goBack(), second);
        await travel("history.back()", first);
        await travel(() => page.goForward(), second);
        await travel("history.forward()", third);
        await travel("history.go(-2)", first);
      });

      await t.step(
        "light and dark schemes (screenshots in test_output/)",
        async () => {
          await page.click("#columns summary");
          await page.emulateMediaFeatures([{
            name: "prefers-color-scheme",
            value: "light",
          }]);
          await page.screenshot({
            path: `${OUTPUT}table_view_light.png`,
            fullPage: true,
          });
          const colours = `[getComputedStyle(document.body).backgroundColor,
            getComputedStyle(document.body).color]`;
          const light = await js<string[]>(page, colours);
          await page.emulateMediaFeatures([{
            name: "prefers-color-scheme",
            value: "dark",
          }]);
          await page.screenshot({
            path: `${OUTPUT}table_view_dark.png`,
            fullPage: true,
          });
          const dark = await js<string[]>(page, colours);
          const brightness = (rgb: string) =>
            (rgb.match(/\d+/g) ?? []).slice(0, 3).map(Number).reduce(
              (a, b) => a + b,
              0,
            ) / 3;
          assert.ok(brightness(light[0]!) > 200, String(light[0]));
          assert.ok(brightness(light[1]!) < 80, String(light[1]));
          assert.ok(brightness(dark[0]!) < 60, String(dark[0]));
          assert.ok(brightness(dark[1]!) > 180, String(dark[1]));
          await page.emulateMediaFeatures([]);
          await page.click("#columns summary");
        },
      );

      await t.step(
        "keyboard only: sort, filter, paging, columns and download",
        async () => {
          const keys = await openPage(browser!, `${base}/`, errors);
          keys.on("request", (request) => requested.push(request.url()));
          await tabTo(
            keys,
            `el.closest("#head-row") && el.textContent === "score"`,
            "the score header",
          );
          await keys.keyboard.press("Enter");
          const sortOf = () =>
            keys.$eval(
              "#head-row th:nth-child(3)",
              (th) => th.getAttribute("aria-sort"),
            );
          assert.equal(await sortOf(), "ascending");
          const scores = async () =>
            (await shownTable(keys)).rows.map((r) => r[2]!.text).filter((s) =>
              s !== ""
            ).map(Number);
          assert.deepEqual(
            await scores(),
            [...await scores()].sort((a, b) => a - b),
          );
          await keys.keyboard.press("Space");
          assert.equal(await sortOf(), "descending");
          assert.deepEqual(
            await scores(),
            [...await scores()].sort((a, b) => b - a),
          );
          await tabTo(
            keys,
            `el.getAttribute("aria-label") === "Filter name"`,
            "the name filter",
          );
          await keys.keyboard.type("zoë");
          const names = (await shownTable(keys)).rows.map((r) => r[1]!.text);
          assert.ok(
            names.length > 0 &&
              names.every((n) => n.toLowerCase().includes("zoë")),
            String(names),
          );
          const filtered = await pageInfo(keys);
          await tabTo(keys, `el.id === "next"`, "Next");
          await keys.keyboard.press("Enter");
          assert.equal((await pageInfo(keys)).page, 2);
          assert.equal((await pageInfo(keys)).total, filtered.total);
          await tabTo(keys, `el.id === "page-size"`, "the page size");
          await keys.keyboard.press("ArrowDown");
          assert.equal(new URL(keys.url()).searchParams.get("size"), "50");
          await keys.keyboard.down("Shift");
          await tabTo(keys, `el.id === "filter"`, "the global filter");
          await keys.keyboard.up("Shift");
          await keys.keyboard.type("leeds");
          assert.ok((await pageInfo(keys)).total < filtered.total);
          await tabTo(keys, `el.tagName === "SUMMARY"`, "Columns");
          await keys.keyboard.press("Enter");
          assert.equal(
            await prop(keys, "#columns", "open"),
            true,
          );
          await tabTo(
            keys,
            `el.dataset.column === "id" && el.type === "checkbox"`,
            "the id box",
          );
          await keys.keyboard.press("Space");
          assert.deepEqual((await shownTable(keys)).headers, COLUMNS.slice(1));
          await keys.keyboard.press("Escape");
          assert.equal(
            await prop(keys, "#columns", "open"),
            false,
          );
          assert.equal(
            await js(keys, "document.activeElement.tagName"),
            "SUMMARY",
          );
          await tabTo(keys, `el.id === "download"`, "Download CSV");
          const { bytes } = await downloadOf(
            session,
            downloads,
            () => keys.keyboard.press("Enter"),
          );
          const records = csvRecords(bytes);
          assert.deepEqual(records[0], COLUMNS.slice(1));
          assert.equal(records.length - 1, (await pageInfo(keys)).total);
          await keys.close();
        },
      );

      await t.step(
        "auto-refresh picks up new data and keeps the view",
        async () => {
          const url =
            `${refreshingBase}/?filter.name=%C3%A9&sort=score&order=desc&page=2&size=10`;
          // This page's console shows the 503 on purpose: its own list.
          const liveErrors: string[] = [];
          const live = await openPage(browser!, url, liveErrors);
          live.on("request", (request) => requested.push(request.url()));
          await js(
            live,
            `(() => {
              const notice = document.getElementById("notice");
              globalThis.notices = [];
              new MutationObserver(() => globalThis.notices.push(notice.textContent))
                .observe(notice, { childList: true, characterData: true, subtree: true });
            })()`,
          );
          await live.focus(columnFilter("name"));
          const before = await viewOf(live);
          assert.equal(before.url, url);
          const without = (v: typeof before) => ({
            ...v,
            table: { ...v.table, rows: v.table.rows.map((r) => r.slice(0, 6)) },
          });
          assert.ok(before.table.rows.every((r) => r[6]!.text === "v1"));
          api.version = 2;
          await live.waitForFunction(
            `[...document.querySelectorAll("#data tbody tr td:last-child")].every((td) => td.textContent === "v2")`,
            { timeout: 15_000 },
          );
          assert.deepEqual(without(await viewOf(live)), without(before));
          assert.ok(
            (await js<string[]>(live, "globalThis.notices")).includes(
              "Updating...",
            ),
          );
          assert.equal(
            await js(live, `document.activeElement.getAttribute("aria-label")`),
            "Filter name",
            "focus stays in the filter box",
          );

          api.failing = true;
          await live.waitForSelector("#error:not([hidden])", {
            timeout: 15_000,
          });
          const message = await live.$eval("#error", (p) => p.textContent!);
          assert.match(message, /\b503\b/);
          assert.match(message, /Maintenance/);
          api.failing = false;
          api.version = 3;
          await live.waitForFunction(
            `document.getElementById("error").hidden && [...document.querySelectorAll("#data tbody tr td:last-child")].every((td) => td.textContent === "v3")`,
            { timeout: 15_000 },
          );
          const after = await viewOf(live);
          assert.deepEqual(without(after), without(before));
          assert.equal(after.url, url);

          await visibility(live, "hidden");
          await new Promise((resolve) => setTimeout(resolve, 2_500));
          const whileHidden = api.requests;
          await new Promise((resolve) => setTimeout(resolve, 3_000));
          assert.equal(
            api.requests,
            whileHidden,
            "no refresh while the tab is hidden",
          );
          await visibility(live, "visible");
          const deadline = Date.now() + 5_000;
          while (api.requests === whileHidden && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          assert.ok(
            api.requests > whileHidden,
            "a refresh as soon as it is shown",
          );
          await live.close();
          assert.deepEqual(
            liveErrors.filter((e) => !/status of 502/.test(e)),
            [],
          );
        },
      );

      await t.step(
        "the pages asked nothing of another origin and logged no errors",
        () => {
          assert.ok(requested.length > 0);
          const origins = new Set([
            new URL(base!).origin,
            new URL(refreshingBase!).origin,
          ]);
          assert.deepEqual(
            requested.filter((u) => !origins.has(new URL(u).origin)),
            [],
          );
          assert.deepEqual(errors, []);
        },
      );
    } finally {
      await browser?.close();
      for (const p of processes) await p.stop();
      await api.close();
      await Deno.remove(userDataDir, { recursive: true });
      await Deno.remove(downloads, { recursive: true });
    }
  },
});
