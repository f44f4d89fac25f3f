import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createTableApp } from "./app.ts";
import { createRegistry } from "../../lib/metrics/registry.ts";
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

Deno.test("createTableApp() responds to GET /api/table with the table, fetched on every request", async () => {
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

Deno.test("createTableApp() returns 502 with the message and a WARNING when the fetch fails", async () => {
  const log = createMemoryLog();
  const app = createTableApp({
    loadTable: () =>
      Promise.reject(
        new TableFetchError(
          "The data API returned HTTP 500 Internal Server Error",
          { status: 500 },
        ),
      ),
    log,
  });
  const response = await app.request("/api/table");
  assert.equal(response.status, 502);
  assert.deepEqual(await response.json(), {
    message: "The data API returned HTTP 500 Internal Server Error",
  });
  assert.deepEqual(log.at("WARNING"), [
    "The data API returned HTTP 500 Internal Server Error",
  ]);
});

Deno.test("createTableApp() returns 508 without a fetch to a request that came round a loop", async () => {
  let loads = 0;
  const log = createMemoryLog();
  const app = createTableApp({
    loadTable: () => {
      loads++;
      return Promise.resolve(table);
    },
    log,
    pseudonym: "homewire-table-1234abcd",
  });
  for (const path of ["/api/table", "/api/table.csv"]) {
    const looped = await app.request(path, {
      headers: { via: "1.1 homewire-table-1234abcd, 1.1 homewire-proxy-9" },
    });
    assert.equal(looped.status, 508, path);
    assert.deepEqual(await looped.json(), {
      message:
        "This request already passed through this table (its Via says so): API_URL points back at the table",
    });
  }
  assert.equal(loads, 0);
  assert.equal(log.at("WARNING").length, 2);
  assert.match(log.at("WARNING")[0]!, /points back at the table/);
  const other = await app.request("/api/table", {
    headers: { via: "1.1 homewire-table-99999999" },
  });
  assert.equal(other.status, 200, "another table's Via is no loop");
  assert.equal(loads, 1);
});

Deno.test("createTableApp() returns a logged 500 when loadTable() throws something unexpected", async () => {
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

const people = {
  columns: ["name", "age", "city"],
  rows: [
    ["Zoë", 31, "Leeds"],
    ["=cmd|' /C calc'!A0", 7, "York"],
    ["Émile", null, "leeds"],
    ["bob, jr", 52, "Hull"],
  ],
};

function csvApp(loadTable = () => Promise.resolve(people)) {
  return createTableApp({ loadTable, log: createMemoryLog() });
}

Deno.test("createTableApp() responds to GET /api/table.csv with every row as a CSV download", async () => {
  const response = await csvApp().request("/api/table.csv");
  assert.equal(response.status, 200);
  assert.equal(
    response.headers.get("content-type"),
    "text/csv; charset=utf-8; header=present",
  );
  assert.equal(
    response.headers.get("content-disposition"),
    'attachment; filename="table.csv"',
  );
  assert.equal(response.headers.get("cache-control"), "no-store");
  const bytes = new Uint8Array(await response.arrayBuffer());
  assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf]);
  assert.equal(
    new TextDecoder().decode(bytes.slice(3)),
    "name,age,city\r\nZoë,31,Leeds\r\n'=cmd|' /C calc'!A0,7,York\r\nÉmile,,leeds\r\n\"bob, jr\",52,Hull\r\n",
  );
});

Deno.test("createTableApp() responds to GET /api/table.csv with the view's rows, order and columns", async (t) => {
  const app = csvApp();
  const csv = async (query: string) => {
    const response = await app.request(`/api/table.csv?${query}`);
    assert.equal(response.status, 200);
    return (await response.text()).replace(/^\uFEFF/, "").split("\r\n")
      .slice(0, -1);
  };
  await t.step(
    "global and numeric column filter, sorted descending",
    async () => {
      assert.deepEqual(
        await csv("filter=LEE&filter.age=%3E%3D10&sort=age&order=desc"),
        ["name,age,city", "Zoë,31,Leeds"],
      );
    },
  );
  await t.step("a hidden column leaves the CSV", async () => {
    assert.deepEqual(await csv("hide=age&sort=name"), [
      "name,city",
      "'=cmd|' /C calc'!A0,York",
      '"bob, jr",Hull',
      "Émile,leeds",
      "Zoë,Leeds",
    ]);
  });
  await t.step("all pages, whatever page and size say", async () => {
    assert.equal((await csv("page=2&size=10")).length, 5);
  });
});

Deno.test("createTableApp() returns 400 naming the parameter for a view it cannot read", async () => {
  let calls = 0;
  const app = csvApp(() => {
    calls++;
    return Promise.resolve(people);
  });
  const response = await app.request("/api/table.csv?sort=age&order=sideways");
  assert.equal(response.status, 400);
  assert.deepEqual(await response.json(), {
    message: 'Invalid order "sideways": expected asc or desc',
  });
  assert.equal(calls, 0, "the data API is not asked");
});

Deno.test("createTableApp() responds to GET /api/table.csv with 502 and the message when the fetch fails", async () => {
  const log = createMemoryLog();
  const app = createTableApp({
    loadTable: () =>
      Promise.reject(new TableFetchError("The data API returned HTTP 503")),
    log,
  });
  const response = await app.request("/api/table.csv");
  assert.equal(response.status, 502);
  assert.deepEqual(await response.json(), {
    message: "The data API returned HTTP 503",
  });
  assert.deepEqual(log.at("WARNING"), ["The data API returned HTTP 503"]);
});

Deno.test("createTableApp() tells the page its refresh interval only when one is set", async () => {
  const html = async (refreshMs?: number) =>
    await (await createTableApp({
      loadTable: () => Promise.resolve(table),
      log: createMemoryLog(),
      refreshMs,
    }).request("/")).text();
  assert.match(await html(5000), /<main data-refresh-ms="5000">/);
  assert.match(await html(), /<main>/);
  assert.match(await html(0), /<main>/);
  const page = await html();
  for (const id of ["download", "columns", "filter-row", "head-row"]) {
    assert.match(page, new RegExp(`id="${id}"`));
  }
  assert.match(page, /href="api\/table\.csv"/);
});

Deno.test("createTableApp() responds to /readyz and counts requests by route when given metrics", async () => {
  const registry = createRegistry();
  const app = createTableApp({
    loadTable: () => Promise.resolve({ columns: ["a"], rows: [["1"]] }),
    log: createMemoryLog(),
    metrics: registry.with({ role: "table" }),
  });
  assert.equal((await app.request("/readyz")).status, 200);
  await (await app.request("/")).body?.cancel();
  assert.match(
    await registry.render(),
    /^homewire_http_requests_total\{role="table",route="\/",method="GET",status_class="2xx"\} 1$/m,
  );
});
