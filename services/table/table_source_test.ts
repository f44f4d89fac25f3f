import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { TableFetchError } from "./table_fetch_error.ts";
import { createTableSource } from "./table_source.ts";

interface Seen {
  headers: Headers;
  method: string;
}

/** A real stand-in data API on 127.0.0.1 responding `reply` to every request. */
async function withStandIn(
  reply: () => Response,
  body: (url: string, seen: Seen[]) => Promise<void>,
) {
  const seen: Seen[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      seen.push({ headers: request.headers, method: request.method });
      return reply();
    },
  );
  try {
    await body(`http://127.0.0.1:${server.addr.port}/data`, seen);
  } finally {
    await server.shutdown();
  }
}

const json = (value: unknown, status = 200) => () =>
  Response.json(value, { status });

Deno.test("createTableSource() sends the documented headers, with the key when set", async () => {
  await withStandIn(json([{ a: 1 }]), async (url, seen) => {
    await createTableSource({ apiUrl: url, apiKey: "k3y", via: "1.1 t-1" })();
    await createTableSource({ apiUrl: url })();
    assert.equal(seen.length, 2);
    assert.equal(seen[0]!.headers.get("via"), "1.1 t-1");
    assert.equal(seen[1]!.headers.get("via"), null);
    for (const { headers, method } of seen) {
      assert.equal(method, "GET");
      assert.equal(headers.get("content-type"), "application/json");
      assert.equal(headers.get("accept"), "application/json");
    }
    assert.equal(seen[0]!.headers.get("authorization"), "Bearer k3y");
    assert.equal(seen[1]!.headers.get("authorization"), null);
  });
});

Deno.test("createTableSource() applies the reply rules to real replies", async (t) => {
  const cases: [string, () => Response, unknown][] = [
    [
      "nested objects",
      json([{ name: "Ada", address: { city: "Leeds", zip: { code: "LS1" } } }]),
      {
        columns: ["name", "address.city", "address.zip.code"],
        rows: [["Ada", "Leeds", "LS1"]],
      },
    ],
    [
      "a data wrapper",
      json({ data: [{ a: 1 }, { a: 2 }], page: 1 }),
      { columns: ["a"], rows: [[1], [2]] },
    ],
    ["a scalar", json(7), { columns: ["value"], rows: [[7]] }],
    [
      "an array of scalars",
      json(["x", "y"]),
      { columns: ["value"], rows: [["x"], ["y"]] },
    ],
    [
      "UTF-8 text without a charset",
      () =>
        new Response(new TextEncoder().encode('[{"name":"Zoë Ñandú 東京"}]'), {
          headers: { "content-type": "application/octet-stream" },
        }),
      { columns: ["name"], rows: [["Zoë Ñandú 東京"]] },
    ],
  ];
  for (const [name, reply, expected] of cases) {
    await t.step(name, async () => {
      await withStandIn(reply, async (url) => {
        assert.deepEqual(await createTableSource({ apiUrl: url })(), expected);
      });
    });
  }
});

Deno.test("createTableSource() reports HTTP error statuses with their code", async (t) => {
  for (const status of [401, 500]) {
    await t.step(String(status), async () => {
      await withStandIn(
        json({ message: "Not valid token" }, status),
        async (url) => {
          const error = await createTableSource({ apiUrl: url, apiKey: "k" })()
            .then(() => assert.fail("expected an error"), (e) => e);
          assert.ok(error instanceof TableFetchError);
          assert.equal(error.status, status);
          assert.match(error.message, new RegExp(`\\b${status}\\b`));
          assert.match(error.message, /Not valid token/);
          assert.ok(!error.message.includes("Bearer"));
        },
      );
    });
  }
});

Deno.test("createTableSource() masks the key an API echoes before it cuts the message", async () => {
  const key = "table-key-0123456789";
  // The key sits across the 200th character: cut first, its first half would show.
  const message = `${"x".repeat(190)} key ${key} refused`;
  await withStandIn(json({ message }, 401), async (url) => {
    const error = await createTableSource({ apiUrl: url, apiKey: key })()
      .then(() => assert.fail("expected an error"), (e) => e);
    assert.ok(error instanceof TableFetchError);
    assert.ok(!error.message.includes("table"), error.message);
    assert.match(error.message, /x key \*\*\*\* $/);
  });
});

Deno.test("createTableSource() reports a body that is not JSON", async () => {
  await withStandIn(() => new Response("<html>oops</html>"), async (url) => {
    await assert.rejects(createTableSource({ apiUrl: url })(), (error) => {
      assert.ok(error instanceof TableFetchError);
      assert.match(error.message, /not JSON/);
      return true;
    });
  });
});

Deno.test("createTableSource() refuses a table of more cells than maxBytes", async () => {
  // 400 records, each with a key of its own: a 5 KB reply, 160,000 cells.
  const sparse = Array.from({ length: 400 }, (_, i) => ({ [`k${i}`]: i }));
  await withStandIn(json(sparse), async (url) => {
    const loadTable = createTableSource({ apiUrl: url, maxBytes: 100_000 });
    const error = await loadTable().catch((error) => error);
    assert.ok(error instanceof TableFetchError, String(error));
    assert.equal(error.status, 200);
    assert.equal(
      error.message,
      `The data API at "${url}" returned a table of 400 rows and 400 columns, over 100000 cells (TABLE_SOURCE_MAX_BYTES)`,
    );
    const dense = await createTableSource({ apiUrl: url, maxBytes: 160_000 })();
    assert.equal(dense.columns.length, 400);
  });
});

Deno.test("createTableSource() refuses JSON nested deeper than 10,000 levels", async () => {
  const nested = (depth: number) => () =>
    new Response("[".repeat(depth) + "1" + "]".repeat(depth), {
      headers: { "content-type": "application/json" },
    });
  await withStandIn(nested(10_001), async (url) => {
    const error = await createTableSource({ apiUrl: url })()
      .catch((error) => error);
    assert.ok(error instanceof TableFetchError, String(error));
    assert.equal(error.status, 200);
    assert.equal(
      error.message,
      `The data API at "${url}" returned JSON nested deeper than 10000 levels`,
    );
  });
  await withStandIn(nested(10_000), async (url) => {
    const { columns, rows } = await createTableSource({ apiUrl: url })();
    assert.deepEqual(columns, ["V1"]);
    assert.ok(String(rows[0]![0]).startsWith("[[[["));
  });
});

Deno.test("createTableSource() reports an unreachable API clearly", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  await assert.rejects(
    createTableSource({
      apiUrl: `http://user:pw@127.0.0.1:${port}/data?key=s`,
    })(),
    (error) => {
      assert.ok(error instanceof TableFetchError);
      assert.equal(error.status, undefined);
      assert.match(
        error.message,
        new RegExp(
          `Cannot reach the data API at "http://127.0.0.1:${port}/data"`,
        ),
      );
      assert.ok(
        !error.message.includes("pw") && !error.message.includes("key=s"),
      );
      return true;
    },
  );
});

Deno.test("createTableSource() reports a body that cannot be read as the API's, not as unreachable", async () => {
  const notGzip = () =>
    new Response("[1, 2]", {
      headers: {
        "content-type": "application/json",
        "content-encoding": "gzip",
      },
    });
  await withStandIn(notGzip, async (url) => {
    const error = await createTableSource({ apiUrl: url })()
      .catch((error) => error);
    assert.ok(error instanceof TableFetchError, String(error));
    assert.equal(error.status, 200);
    assert.match(
      error.message,
      new RegExp(
        `^The data API at "${url}" returned a body that cannot be read: .*gzip`,
      ),
    );
  });
});

Deno.test("createTableSource() gives up after timeoutMs", async () => {
  let release = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async () => {
      await held;
      return new Response("[]");
    },
  );
  try {
    await assert.rejects(
      createTableSource({
        apiUrl: `http://127.0.0.1:${server.addr.port}/data`,
        timeoutMs: 100,
      })(),
      /did not respond within 100 ms/,
    );
  } finally {
    release();
    await server.shutdown();
  }
});

Deno.test("createTableSource() clears its time limit once the reply is read", async () => {
  // An `AbortSignal.timeout` per load kept its timer, and the request's state through
  // its signal, until it fired: the role's memory grew with the request rate.
  const clock = FakeTimers.install({ toFake: ["setTimeout", "clearTimeout"] });
  try {
    const signals: AbortSignal[] = [];
    let hang = false;
    const loadTable = createTableSource({
      apiUrl: "http://127.0.0.1:9/data",
      timeoutMs: 1000,
      fetch: (_input, init) => {
        const signal = init!.signal!;
        signals.push(signal);
        if (!hang) return Promise.resolve(Response.json([{ a: 1 }]));
        return new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => reject(signal.reason))
        );
      },
    });
    await loadTable();
    assert.equal(clock.countTimers(), 0);
    hang = true;
    const hung = assert.rejects(loadTable(), /did not respond within 1000 ms/);
    assert.equal(clock.countTimers(), 1);
    await clock.tickAsync(1000);
    await hung;
    assert.equal(signals[0]!.aborted, false);
    assert.equal(clock.countTimers(), 0);
  } finally {
    clock.uninstall();
  }
});
