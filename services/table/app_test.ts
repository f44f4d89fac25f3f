import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/log.ts";
import { createTableApp } from "./app.ts";
import { TableFetchError } from "./fetch_table.ts";

const table = {
  columns: ["name", "phone"],
  rows: [["Ada", "+1 200-100-1000"]],
};

Deno.test("GET / serves an accessible page that loads only its own assets", async () => {
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

Deno.test("the page script is valid JavaScript that fetches api/table", async () => {
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

Deno.test("GET /api/table answers the table, fetched on every request", async () => {
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

Deno.test("GET /api/table answers 502 with the fetch error, logged as a WARNING", async () => {
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

Deno.test("GET /api/table answers a logged 500 to an unexpected error", async () => {
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
