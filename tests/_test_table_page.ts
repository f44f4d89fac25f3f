/**
 * Helpers for the table page suites in Chromium: a 1,000-row stand-in data API whose
 * data can change or fail on demand, CSV downloads through the browser, and reading
 * the page's table.
 *
 * @module
 */
import assert from "node:assert/strict";
import type { Browser, CDPSession, Page } from "puppeteer-core";
import { parseCsv } from "../services/table/_test_csv.ts";

/** One row of the stand-in data set, as the API returns it. */
export interface Person {
  id: number;
  name: string;
  score: number | null;
  formula: string;
  note: string;
  address: { city: string };
  updated: string;
}

const FIRST = [
  "Zoë",
  "Émile",
  "Ørjan",
  "Çağla",
  "José",
  "ada",
  "Bob",
  "Ådne",
  "Łukasz",
  "Noémie",
  "Ünal",
];
const CITIES = ["Leeds", "York", "Hull", "Malmö", "Besançon", "Zürich", "Ōita"];
const FORMULAS = [
  (i: number) => `=HYPERLINK("http://example.com/${i}","click")`,
  (i: number) => `+44 20 7946 ${String(i).padStart(4, "0")}`,
  (i: number) => `-${i} units`,
  (i: number) => `@SUM(A${i})`,
  (i: number) => `plain ${i}`,
];

/** The data set: 1,000 people with accents, formula-like text and numbers. */
export function people(version: number): Person[] {
  return Array.from({ length: 1000 }, (_, i) => ({
    id: i + 1,
    name: `${FIRST[i % FIRST.length]} ${(i * 7919) % 1000}`,
    score: i % 50 === 49 ? null : ((i * 37) % 201) - 100,
    formula: FORMULAS[i % FORMULAS.length]!(i),
    note: i % 5 === 0 ? `He said "hi", then left\nline ${i}` : `note ${i}`,
    address: { city: CITIES[i % CITIES.length]! },
    updated: `v${version}`,
  }));
}

/** A stand-in data API responding {@linkcode people}; `version` and `failing` change it. */
export interface StandInApi {
  url: string;
  /** Data version; the `updated` column shows it. */
  version: number;
  /** Return 503 instead of the data. */
  failing: boolean;
  /** Requests served so far. */
  readonly requests: number;
  close(): Promise<void>;
}

/** Starts the stand-in data API on 127.0.0.1. */
export function startStandInApi(): StandInApi {
  const state = { version: 1, failing: false, requests: 0 };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => {
      state.requests++;
      return state.failing
        ? Response.json({ message: "Maintenance" }, { status: 503 })
        : Response.json({ data: people(state.version) });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/data`,
    get version() {
      return state.version;
    },
    set version(value) {
      state.version = value;
    },
    get failing() {
      return state.failing;
    },
    set failing(value) {
      state.failing = value;
    },
    get requests() {
      return state.requests;
    },
    close: () => server.shutdown(),
  };
}

/** Lets the browser save downloads into `dir` and report them on the returned session. */
export async function allowDownloads(
  browser: Browser,
  dir: string,
): Promise<CDPSession> {
  const session = await browser.target().createCDPSession();
  await session.send("Browser.setDownloadBehavior", {
    behavior: "allowAndName",
    downloadPath: dir,
    eventsEnabled: true,
  });
  return session;
}

/**
 * Runs `trigger` (a click or key press on the download control) and returns the saved
 * file's bytes and suggested name once the download completes.
 */
export async function downloadOf(
  session: CDPSession,
  dir: string,
  trigger: () => Promise<unknown>,
): Promise<{ name: string; bytes: Uint8Array }> {
  let name = "";
  const begun = (event: { suggestedFilename: string }) => {
    name = event.suggestedFilename;
  };
  let settle: (guid: string) => void = () => {};
  let fail: (error: Error) => void = () => {};
  const done = new Promise<string>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  const progress = (event: { guid: string; state: string }) => {
    if (event.state === "completed") settle(event.guid);
    if (event.state === "canceled") fail(new Error("download canceled"));
  };
  session.on("Browser.downloadWillBegin", begun);
  session.on("Browser.downloadProgress", progress);
  const timer = setTimeout(
    () => fail(new Error("no download within 15 s")),
    15_000,
  );
  try {
    await trigger();
    const guid = await done;
    return { name, bytes: await Deno.readFile(`${dir}/${guid}`) };
  } finally {
    clearTimeout(timer);
    session.off("Browser.downloadWillBegin", begun);
    session.off("Browser.downloadProgress", progress);
  }
}

/** A downloaded CSV checked for its BOM and read into records. */
export function csvRecords(bytes: Uint8Array): string[][] {
  assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf], "UTF-8 BOM");
  return parseCsv(
    new TextDecoder("utf-8", { fatal: true }).decode(bytes.slice(3)),
  );
}

/** The shown table: header texts, and rows of `{ text, number }` cells. */
export interface ShownTable {
  headers: string[];
  rows: { text: string; number: boolean }[][];
}

/** Reads the headers and the rows of the page shown now. */
export function shownTable(page: Page): Promise<ShownTable> {
  return page.evaluate(`({
    headers: [...document.querySelectorAll("#head-row th")].map((th) => th.textContent),
    rows: [...document.querySelectorAll("#data tbody tr")].map((tr) =>
      [...tr.children].map((td) => ({
        text: td.textContent,
        number: td.classList.contains("number"),
      }))
    ),
  })`) as Promise<ShownTable>;
}

/** The page's "Rows a-b of N" counts: N and the page number. */
export async function pageInfo(
  page: Page,
): Promise<{ total: number; page: number; pages: number }> {
  const text = await page.$eval("#page-info", (s) => s.textContent ?? "");
  const match = /of (\d+).*page (\d+) of (\d+)/.exec(text);
  assert.ok(match, `page info "${text}"`);
  return {
    total: Number(match[1]),
    page: Number(match[2]),
    pages: Number(match[3]),
  };
}

/** Every row of the view, walking its pages with the Next button from page 1. */
export async function allPages(page: Page): Promise<ShownTable> {
  while (!(await page.$eval("#prev", (b) => b.hasAttribute("disabled")))) {
    await page.click("#prev");
  }
  const first = await shownTable(page);
  const rows = [...first.rows];
  while (!(await page.$eval("#next", (b) => b.hasAttribute("disabled")))) {
    await page.click("#next");
    rows.push(...(await shownTable(page)).rows);
  }
  return { headers: first.headers, rows };
}

/** What a shown cell becomes in the CSV: text that looks like a formula gets a `'`. */
export function expectedField(cell: { text: string; number: boolean }): string {
  return !cell.number && /^[=+\-@\t\r]/.test(cell.text)
    ? `'${cell.text}`
    : cell.text;
}
