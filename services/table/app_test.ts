import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/testing.ts";
import { createTableApp } from "./app.ts";
import { TableFetchError } from "./table_fetch_error.ts";

const table = {
  columns: ["name", "phone"],
  rows: [["Ada", "+1 200-100-1000"]],
};

Deno.test("createTableApp() serves an accessible page at GET / that loads only its own assets", async () => {
  const app = createTableApp({
    loadTable: () => Promise.resolve(table),
    log: createMemoryLog(),
  });
  const page = await app.request("/");
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-type")!, /^text\/html; charset=utf-8/);
  assert.match(
    page.headers.get("content-security-policy")!,
    /default-src 'none'/,
  );
  const html = await page.text();
  assert.match(
    html,
    /<button id="refresh" type="button">Refresh data<\/button>/,
  );
  assert.match(html, /<table id="data"/);
  assert.match(html, /<html lang="en">/);
  assert.match(html, /<label for="filter">/);
  assert.doesNotMatch(html, /https?:\/\//, "no outside assets (no CDN)");
  for (
    const [path, type] of [["/page.js", /^text\/javascript/], [
      "/page.css",
      /^text\/css/,
    ]] as const
  ) {
    const response = await app.request(path);
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type")!, type);
    assert.doesNotMatch(await response.text(), /https?:\/\//);
  }
});

Deno.test("createTableApp() serves a page script that is valid JavaScript fetching api/table", async () => {
  const app = createTableApp({
    loadTable: () => Promise.resolve(table),
    log: createMemoryLog(),
  });
  const script = await (await app.request("/page.js")).text();
  assert.doesNotThrow(() => new Function(script));
  assert.match(script, /fetch\("api\/table"/);
  assert.match(script, /Updating\.\.\./);
  assert.doesNotMatch(script, /innerHTML/);
});

Deno.test("createTableApp() answers GET /api/table with the table, fetched on every request", async () => {
  let calls = 0;
  const app = createTableApp({
    loadTable: () =>
      Promise.resolve({ ...table, rows: [[`call ${++calls}`, null]] }),
    log: createMemoryLog(),
  });
  const first = await app.request("/api/table");
  assert.equal(first.status, 200);
  assert.equal(first.headers.get("cache-control"), "no-store");
  const body = await first.json();
  assert.deepEqual(body.columns, table.columns);
  assert.deepEqual(body.rows, [["call 1", null]]);
  assert.ok(!Number.isNaN(Date.parse(body.fetchedAt)));
  const second = await (await app.request("/api/table")).json();
  assert.deepEqual(second.rows, [["call 2", null]]);
});

Deno.test("createTableApp() answers 502 with the message and a WARNING when the fetch fails", async () => {
  const log = createMemoryLog();
  const app = createTableApp({
    loadTable: () =>
      Promise.reject(
        new TableFetchError(
          "The data API answered HTTP 500 Internal Server Error",
          { status: 500 },
        ),
      ),
    log,
  });
  const response = await app.request("/api/table");
  assert.equal(response.status, 502);
  assert.deepEqual(await response.json(), {
    message: "The data API answered HTTP 500 Internal Server Error",
  });
  assert.deepEqual(log.at("WARNING"), [
    "The data API answered HTTP 500 Internal Server Error",
  ]);
});

Deno.test("createTableApp() answers a logged 500 when loadTable() throws something unexpected", async () => {
  const log = createMemoryLog();
  const app = createTableApp({
    loadTable: () => Promise.reject(new Error("boom")),
    log,
  });
  const response = await app.request("/api/table");
  assert.equal(response.status, 500);
  assert.equal(typeof (await response.json()).message, "string");
  assert.equal(log.at("ERROR").length, 1);
});
