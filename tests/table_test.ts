/**
 * The `table` role through `main.ts`, reading a real `data-api` role.
 */
import assert from "node:assert/strict";
import { listeningUrl, type MainProcess, startMain } from "./_test_helpers.ts";

const TOKEN = "table-subprocess-token-42";

function startDataApi(): MainProcess {
  return startMain(["data-api"], {
    env: {
      DATA_API_TOKEN: TOKEN,
      DATA_API_HOST: "127.0.0.1",
      DATA_API_PORT: "0",
    },
  });
}

Deno.test("main.ts table 0 127.0.0.1 false serves the data API's contacts as a table", async () => {
  const api = startDataApi();
  let table: MainProcess | undefined;
  try {
    const apiUrl = `${await listeningUrl(api, "data-api")}/data`;
    table = startMain(["table", "0", "127.0.0.1", "false"], {
      env: { API_URL: apiUrl, API_KEY: TOKEN, TABLE_PORT: "1" },
    });
    const base = await listeningUrl(table, "table");
    assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);

    const page = await fetch(`${base}/`);
    assert.match(
      await page.text(),
      /<button id="refresh" type="button">Refresh data<\/button>/,
    );

    const first = await (await fetch(`${base}/api/table`)).json();
    assert.deepEqual(first.columns, ["phone", "name", "email"]);
    assert.equal(first.rows.length, 20);
    const second = await (await fetch(`${base}/api/table`)).json();
    assert.notDeepEqual(
      second.rows.map((r: string[]) => r[0]),
      first.rows.map((r: string[]) => r[0]),
    );
    assert.deepEqual(
      second.rows.map((r: string[]) => r[1]),
      first.rows.map((r: string[]) => r[1]),
    );
  } finally {
    if (table) assert.equal(await table.stop(), 0);
    assert.equal(await api.stop(), 0);
  }
  const output = [...(table?.stderr ?? []), ...(table?.stdout ?? [])].join(
    "\n",
  );
  assert.ok(!output.includes(TOKEN), "the key must never be logged");
  assert.ok(!output.includes("WARNING"), output);
});

Deno.test("main.ts table reports the data API's 401 with its code", async () => {
  const api = startDataApi();
  let table: MainProcess | undefined;
  try {
    const apiUrl = `${await listeningUrl(api, "data-api")}/data`;
    table = startMain(["table", "0", "127.0.0.1", "no"], {
      env: { API_URL: apiUrl, API_KEY: "wrong-key" },
    });
    const base = await listeningUrl(table, "table");
    const response = await fetch(`${base}/api/table`);
    assert.equal(response.status, 502);
    const { message } = await response.json();
    assert.match(message, /\b401\b/);
    assert.match(message, /Not valid token/);
    await table.waitFor(/\[WARNING\] .*401/);
  } finally {
    if (table) assert.equal(await table.stop(), 0);
    assert.equal(await api.stop(), 0);
  }
  assert.ok(!table.stderr.join("\n").includes("wrong-key"));
});

Deno.test("main.ts table without API_URL exits 2 naming the variable", async () => {
  const table = startMain(["table", "0", "127.0.0.1", "false"]);
  assert.equal(await table.exited(), 2);
  assert.ok(
    table.stderr.some((line) => /API_URL/.test(line)),
    table.stderr.join("\n"),
  );
});

Deno.test("main.ts table with a bad argument exits 2 naming it", async () => {
  const table = startMain(["table", "0", "127.0.0.1", "perhaps"], {
    env: { API_URL: "http://127.0.0.1:9/data" },
  });
  assert.equal(await table.exited(), 2);
  assert.ok(
    table.stderr.some((line) => /TABLE_OPEN_BROWSER "perhaps"/.test(line)),
    table.stderr.join("\n"),
  );
});

Deno.test("main.ts table keeps serving with a WARNING when no browser opener exists", async () => {
  const emptyPath = await Deno.makeTempDir({ prefix: "homewire-nopath-" });
  const table = startMain(["table"], {
    env: {
      PATH: emptyPath,
      API_URL: "http://127.0.0.1:9/data",
      TABLE_HOST: "127.0.0.1",
      TABLE_PORT: "0",
    },
  });
  try {
    const base = await listeningUrl(table, "table");
    const warning = await table.waitFor(/\[WARNING\] Cannot open a browser/);
    assert.match(warning, /xdg-open/);
    const response = await fetch(`${base}/healthz`);
    assert.deepEqual(await response.json(), { status: "ok" });
  } finally {
    assert.equal(await table.stop(), 0);
    await Deno.remove(emptyPath);
  }
});

Deno.test("main.ts table responds to GET /api/table.csv with the view of the data API's contacts", async () => {
  const api = startDataApi();
  let table: MainProcess | undefined;
  try {
    const apiUrl = `${await listeningUrl(api, "data-api")}/data`;
    table = startMain(["table", "0", "127.0.0.1", "false"], {
      env: { API_URL: apiUrl, API_KEY: TOKEN },
    });
    const base = await listeningUrl(table, "table");
    const response = await fetch(
      `${base}/api/table.csv?sort=name&order=desc&hide=email&filter.name=a`,
    );
    assert.equal(response.status, 200);
    assert.equal(
      response.headers.get("content-disposition"),
      'attachment; filename="table.csv"',
    );
    const bytes = new Uint8Array(await response.arrayBuffer());
    assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf]);
    const lines = new TextDecoder().decode(bytes.slice(3)).split("\r\n");
    assert.equal(lines.pop(), "", "CRLF after the last record");
    assert.equal(lines[0], "phone,name");
    const records = lines.slice(1).map((line) => line.split(","));
    assert.ok(records.length > 0 && records.length < 20, String(records));
    const names = records.map(([, name]) => name!);
    assert.ok(names.every((name) => name.toLowerCase().includes("a")));
    assert.deepEqual(names, [...names].sort((a, b) => b.localeCompare(a)));
    for (const [phone] of records) {
      assert.match(phone!, /^'\+1 \d{3}-\d{3}-\d{4}$/, "formula prefix");
    }

    const bad = await fetch(`${base}/api/table.csv?size=7`);
    assert.equal(bad.status, 400);
    assert.deepEqual(await bad.json(), {
      message: 'Invalid size "7": expected one of 10, 25, 50, 100',
    });
  } finally {
    if (table) assert.equal(await table.stop(), 0);
    assert.equal(await api.stop(), 0);
  }
});

Deno.test("main.ts table with a bad TABLE_REFRESH_MS exits 2 naming it", async () => {
  const table = startMain(["table", "0", "127.0.0.1", "false"], {
    env: { API_URL: "http://127.0.0.1:9/data", TABLE_REFRESH_MS: "200" },
  });
  assert.equal(await table.exited(), 2);
  assert.ok(
    table.stderr.some((line) => /TABLE_REFRESH_MS "200"/.test(line)),
    table.stderr.join("\n"),
  );
});
