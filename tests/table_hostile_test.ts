/**
 * The `table` role through `main.ts` against a data API whose replies are hostile
 * in shape rather than in size (a table of too many cells, JSON nested too deep, the
 * table itself): a 502 naming the cause, in bounded memory and time.
 */
import assert from "node:assert/strict";
import { freePort, listeningUrl, startMain } from "./_test_helpers.ts";
import { peakResidentMb } from "./_test_bombs.ts";

/** The bound on the table's peak resident size, in MB (it starts near 90). */
const MAX_RESIDENT_MB = 300;

/** A stand-in data API on 127.0.0.1 responding `body` as JSON to every request. */
function startStandIn(body: string) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response(body, { headers: { "content-type": "application/json" } }),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/data`,
    stop: () => server.shutdown(),
  };
}

Deno.test("main.ts table returns 502 to 20,000 records each with a key of its own, in bounded memory", async () => {
  // 250 KB of JSON whose table is 20,000 × 20,000 cells: before the bound on cells,
  // the role took a minute and 5 GB to fail with a 500.
  const records = Array.from({ length: 20_000 }, (_, i) => `{"k${i}":${i}}`);
  const upstream = startStandIn(`[${records.join(",")}]`);
  const table = startMain(["table", "0", "127.0.0.1", "false"], {
    env: { API_URL: upstream.url },
  });
  try {
    const base = await listeningUrl(table, "table");
    for (const path of ["/api/table", "/api/table.csv"]) {
      const response = await fetch(`${base}${path}`);
      assert.equal(response.status, 502, path);
      assert.deepEqual(await response.json(), {
        message:
          `The data API at "${upstream.url}" returned a table of 20000 rows and 20000 columns, over 67108864 cells (TABLE_SOURCE_MAX_BYTES)`,
      });
    }
    await table.waitFor(/\[WARNING\] .*20000 columns/);
    const peak = await peakResidentMb(table.child.pid);
    assert.ok(peak < MAX_RESIDENT_MB, `peak resident size ${peak} MB`);
  } finally {
    assert.equal(await table.stop(), 0);
    await upstream.stop();
  }
});

Deno.test("main.ts table returns 502 at once to 10 million nested arrays, in bounded memory", async () => {
  // 20 MB of JSON: before the bound on nesting, showing it as one cell of JSON text
  // kept the role busy for 86 s (JSON.stringify slows with the square of the depth)
  // and took 1.5 GB.
  const depth = 10_000_000;
  const upstream = startStandIn("[".repeat(depth) + "1" + "]".repeat(depth));
  const table = startMain(["table", "0", "127.0.0.1", "false"], {
    env: { API_URL: upstream.url },
  });
  try {
    const base = await listeningUrl(table, "table");
    const started = performance.now();
    const response = await fetch(`${base}/api/table`);
    assert.equal(response.status, 502);
    assert.deepEqual(await response.json(), {
      message:
        `The data API at "${upstream.url}" returned JSON nested deeper than 10000 levels`,
    });
    const seconds = (performance.now() - started) / 1000;
    assert.ok(seconds < 10, `responded after ${seconds} s`);
    const peak = await peakResidentMb(table.child.pid);
    assert.ok(peak < MAX_RESIDENT_MB, `peak resident size ${peak} MB`);
  } finally {
    assert.equal(await table.stop(), 0);
    await upstream.stop();
  }
});

Deno.test("main.ts table whose API_URL is its own /api/table returns 502 naming the loop", async () => {
  // Before the Via check, one request looped until the role ran out of file
  // descriptors (18,000 in 6 s) and exited.
  const port = freePort();
  const apiUrl = `http://127.0.0.1:${port}/api/table`;
  const table = startMain(["table", String(port), "127.0.0.1", "false"], {
    env: { API_URL: apiUrl },
  });
  try {
    const base = await listeningUrl(table, "table");
    const response = await fetch(`${base}/api/table`);
    assert.equal(response.status, 502);
    assert.deepEqual(await response.json(), {
      message:
        `The data API at "${apiUrl}" returned HTTP 508 Loop Detected: This request already passed through this table (its Via says so): API_URL points back at the table`,
    });
    const health = await fetch(`${base}/healthz`);
    assert.deepEqual(await health.json(), { status: "ok" });
    const descriptors = [...Deno.readDirSync(`/proc/${table.child.pid}/fd`)];
    assert.ok(descriptors.length < 200, `${descriptors.length} descriptors`);
  } finally {
    assert.equal(await table.stop(), 0);
  }
});
