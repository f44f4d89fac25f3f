/**
 * `deno task start` with no role: the zero-configuration demo set.
 */
import assert from "node:assert/strict";
import { freePort, startMain, waitForHttp } from "./_test_helpers.ts";

Deno.test("the demo set runs messages, data-api and table wired together", async () => {
  const [messages, dataApi, table] = [freePort(), freePort(), freePort()];
  const child = startMain([], {
    env: {
      MESSAGES_PORT: String(messages),
      DATA_API_PORT: String(dataApi),
      TABLE_PORT: String(table),
      TABLE_OPEN_BROWSER: "false",
    },
  });
  try {
    const line = await child.waitFor(/Demo data-API token/);
    const token = /: ([0-9a-f]{48})$/.exec(line)?.[1];
    assert.ok(token, `no token in "${line}"`);
    assert.ok(
      child.stdout.includes(line),
      "the token is printed on standard output",
    );
    assert.ok(
      child.stdout.includes(
        `Demo running: open http://127.0.0.1:${table}/ (Ctrl-C to stop)`,
      ),
      child.stdout.join("\n"),
    );
    await Promise.all(
      [messages, dataApi, table].map((p) =>
        waitForHttp(`http://127.0.0.1:${p}/healthz`)
      ),
    );

    const denied = await fetch(`http://127.0.0.1:${dataApi}/data`);
    assert.equal(denied.status, 401);
    await denied.body?.cancel();
    const data = await fetch(`http://127.0.0.1:${dataApi}/data`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal((await data.json()).length, 20);

    const page = await fetch(`http://127.0.0.1:${table}/api/table`);
    assert.equal(page.status, 200);
    const shown = await page.json();
    assert.equal(shown.rows.length, 20);
    assert.deepEqual([...shown.columns].sort(), ["email", "name", "phone"]);

    const created = await fetch(
      `http://127.0.0.1:${messages}/api/message/resource`,
      {
        method: "POST",
        body: JSON.stringify({ author: "demo", message: "hello" }),
      },
    );
    assert.equal(created.status, 201);
    await created.body?.cancel();

    const logs = child.stderr.join("\n");
    assert.equal(logs.includes(token), false, "the token is never logged");
    assert.equal(
      child.stdout.filter((l) => l.includes(token)).length,
      1,
      "printed once",
    );
  } finally {
    assert.equal(await child.stop(), 0);
  }
});

Deno.test("the demo set on ports asked as 0 names the table's real URL and points it at the data API", async () => {
  const child = startMain([], {
    env: {
      MESSAGES_DB: ":memory:",
      MESSAGES_PORT: "0",
      DATA_API_PORT: "0",
      TABLE_PORT: "0",
      TABLE_OPEN_BROWSER: "false",
    },
  });
  try {
    const banner = await child.waitFor(/^Demo running: open /);
    const page = /open (http:\/\/127\.0\.0\.1:(\d+)\/) \(Ctrl-C to stop\)$/
      .exec(banner);
    assert.ok(page, `no page URL in "${banner}"`);
    assert.notEqual(page[2], "0", banner);

    const response = await fetch(new URL("api/table", page[1]));
    const body = await response.text();
    assert.equal(response.status, 200, body);
    assert.equal(JSON.parse(body).rows.length, 20);
  } finally {
    assert.equal(await child.stop(), 0);
  }
});
