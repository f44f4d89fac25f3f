/**
 * The json-server 0.17 list queries, PUT, PATCH and ETags of the `messages` role
 * through `main.ts` as a subprocess: the same cases against SQLite and against a
 * real PostgreSQL.
 */
import assert from "node:assert/strict";
import { type MainProcess, startMain } from "./_test_helpers.ts";
import { requirePostgres, startPostgres } from "./_test_postgres.ts";

const PATH = "/api/message/resource";
const postgres = requirePostgres();

/** The records every case reads, created in this order (ids 1 to 12). */
const RECORDS: [string, string][] = [
  ["Ada", "Hello world"],
  ["bob", "hello again"],
  ["Ada", "Zebra crossing"],
  ["Cy", "apple pie"],
  ["Émile", "Crème brûlée"],
  ["ada", "lower-case ada"],
  ["Bob", "Hello, Bob here"],
  ["Cy", "nothing to see"],
  ["Ada", "HELLO LOUD"],
  ["Dee", "quiet"],
  ["Émile", "second émile"],
  ["Zed", "last one"],
];

/** Query string → the ids returned, in order, and the total when not all 12. */
const CASES: [string, number[], number?][] = [
  ["author=Ada", [1, 3, 9]],
  ["author=Ada&author=Cy", [1, 3, 4, 8, 9]],
  ["id=1&id=3", [1, 3]],
  ["message=quiet", [10]],
  ["author_like=ad", [1, 3, 6, 9]],
  ["author_like=%C3%89MI", [5, 11]],
  ["message_like=HELLO", [1, 2, 7, 9]],
  ["q=hello", [1, 2, 7, 9]],
  ["q=bob", [2, 7]],
  ["q=ADA", [1, 3, 6, 9]],
  ["q=%C3%A9mile", [5, 11]],
  ["author_ne=Ada", [2, 4, 5, 6, 7, 8, 10, 11, 12]],
  ["id_gte=4&id_lte=6", [4, 5, 6]],
  ["id_ne=1&id_ne=2&id_lte=4", [3, 4]],
  ["_sort=author", [1, 3, 9, 7, 4, 8, 10, 12, 6, 2, 5, 11]],
  ["_sort=author&_order=DESC", [5, 11, 2, 6, 12, 10, 4, 8, 7, 1, 3, 9]],
  ["_sort=-id&_limit=3", [12, 11, 10], 12],
  ["_sort=author,id&_order=asc,desc", [9, 3, 1, 7, 8, 4, 10, 12, 6, 2, 11, 5]],
  ["_sort=-author,-id", [11, 5, 2, 6, 12, 10, 8, 4, 7, 9, 3, 1]],
  ["_page=2&_limit=5", [6, 7, 8, 9, 10], 12],
  ["_page=3&_limit=5", [11, 12], 12],
  ["_page=2", [11, 12], 12],
  ["_page=1&_per_page=4", [1, 2, 3, 4], 12],
  ["_start=2&_end=5", [3, 4, 5], 12],
  ["_start=10&_limit=5", [11, 12], 12],
  ["_limit=2", [1, 2], 12],
  ["_page=5&_limit=5", [], 12],
  ["q=hello&_sort=-id&_page=1&_limit=2", [9, 7], 4],
  ["foo=bar&_embed=x", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]],
];

/** Query string → the parameter the 400 names. */
const MALFORMED: [string, string][] = [
  ["_page=0", "_page"],
  ["_page=x", "_page"],
  ["_limit=abc", "_limit"],
  ["_page=1&_limit=1001", "_limit"],
  ["_sort=nope", "_sort"],
  ["_sort=id&_order=up", "_order"],
  ["_start=-1&_end=2", "_start"],
  ["id=one", "id"],
  ["id_gte=1.5", "id_gte"],
];

async function startMessages(
  env: Record<string, string>,
): Promise<{ main: MainProcess; base: string }> {
  const main = startMain(["messages"], {
    env: { MESSAGES_HOST: "127.0.0.1", MESSAGES_PORT: "0", ...env },
  });
  const line = await main.waitFor(/messages listening on http:\/\/\S+/);
  return { main, base: `${/http:\/\/\S+/.exec(line)![0]}${PATH}` };
}

async function get(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  const text = await response.text();
  return { response, text, json: () => JSON.parse(text) };
}

function links(header: string | null): Record<string, URLSearchParams> {
  if (header === null) return {};
  return Object.fromEntries(
    header.split(", ").map((link) => {
      const [, target, rel] = /^<([^>]+)>; rel="(\w+)"$/.exec(link)!;
      return [rel!, new URL(target!).searchParams];
    }),
  );
}

/** Every case, against the `messages` process serving `base`. */
async function runCases(t: Deno.TestContext, base: string) {
  for (const [author, message] of RECORDS) {
    const response = await fetch(base, {
      method: "POST",
      body: JSON.stringify({ author, message }),
    });
    assert.equal(response.status, 201);
    await response.body?.cancel();
  }

  await t.step(
    "no query string: the whole array, no paging headers",
    async () => {
      const { response, json } = await get(base);
      assert.equal(response.status, 200);
      assert.deepEqual(
        json(),
        RECORDS.map(([author, message], i) => ({ id: i + 1, author, message })),
      );
      assert.equal(response.headers.get("x-total-count"), null);
      assert.equal(response.headers.get("link"), null);
    },
  );

  for (const [query, ids, total] of CASES) {
    await t.step(`?${query}`, async () => {
      const { response, json } = await get(`${base}?${query}`);
      assert.equal(response.status, 200);
      const records = json() as { id: number; author: string }[];
      assert.deepEqual(records.map((r) => r.id), ids);
      for (const record of records) {
        assert.deepEqual(record, {
          id: record.id,
          author: RECORDS[record.id - 1]![0],
          message: RECORDS[record.id - 1]![1],
        });
      }
      assert.equal(
        response.headers.get("x-total-count"),
        String(total ?? ids.length),
      );
      // No CORS header at all without MESSAGES_ALLOW_ORIGIN.
      assert.equal(response.headers.get("access-control-expose-headers"), null);
      const rels = links(response.headers.get("link"));
      assert.ok(rels.first && rels.last, "first and last are always there");
    });
  }

  await t.step(
    "Link: first, prev, next and last of a middle page",
    async () => {
      const { response } = await get(`${base}?_page=2&_limit=5&q=`);
      const rels = links(response.headers.get("link"));
      assert.deepEqual(Object.keys(rels).sort(), [
        "first",
        "last",
        "next",
        "prev",
      ]);
      assert.equal(rels.first!.get("_page"), "1");
      assert.equal(rels.prev!.get("_page"), "1");
      assert.equal(rels.next!.get("_page"), "3");
      assert.equal(rels.last!.get("_page"), "3");
      assert.equal(rels.next!.get("_limit"), "5");
      const last = await get(`${base}?_page=3&_limit=5`);
      assert.equal(links(last.response.headers.get("link")).next, undefined);
      const first = await get(`${base}?_page=1&_limit=5`);
      assert.equal(links(first.response.headers.get("link")).prev, undefined);
    },
  );

  await t.step("a malformed known parameter: 400 naming it", async () => {
    for (const [query, name] of MALFORMED) {
      const { response, json } = await get(`${base}?${query}`);
      assert.equal(response.status, 400, query);
      assert.match(json().message, new RegExp(`^Invalid ${name} "`), query);
    }
  });

  await t.step(
    "ETag per query, 304 with no body, changed by a write",
    async () => {
      const paths = ["", "?_page=1&_limit=3", "?q=hello", "/2"];
      const tags: string[] = [];
      for (const path of paths) {
        const { response } = await get(`${base}${path}`);
        const etag = response.headers.get("etag");
        assert.ok(etag, path);
        tags.push(etag);
        const again = await get(`${base}${path}`, { "if-none-match": etag });
        assert.equal(again.response.status, 304, path);
        assert.equal(again.text, "");
        assert.equal(again.response.headers.get("etag"), etag);
      }
      assert.equal(
        new Set(tags).size,
        tags.length,
        "each response its own tag",
      );
      const patched = await fetch(`${base}/2`, {
        method: "PATCH",
        body: JSON.stringify({ message: "hello, patched" }),
      });
      assert.deepEqual(await patched.json(), {
        author: "bob",
        message: "hello, patched",
      });
      for (const [i, path] of paths.entries()) {
        const { response } = await get(`${base}${path}`, {
          "if-none-match": tags[i]!,
        });
        assert.equal(response.status, 200, path);
        assert.notEqual(response.headers.get("etag"), tags[i]);
      }
    },
  );

  await t.step("PUT needs both fields, PATCH either", async () => {
    const put = await fetch(`${base}/3`, {
      method: "PUT",
      body: JSON.stringify({ author: "Ann", message: "Put" }),
    });
    assert.equal(put.status, 200);
    assert.deepEqual(await put.json(), { author: "Ann", message: "Put" });
    const half = await fetch(`${base}/3`, {
      method: "PUT",
      body: JSON.stringify({ author: "Ann" }),
    });
    assert.equal(half.status, 400);
    await half.body?.cancel();
    const patch = await fetch(`${base}/3`, {
      method: "PATCH",
      body: JSON.stringify({ author: "Anne" }),
    });
    assert.deepEqual(await patch.json(), { author: "Anne", message: "Put" });
    const missing = await fetch(`${base}/99`, {
      method: "PATCH",
      body: JSON.stringify({ author: "X" }),
    });
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    assert.deepEqual((await get(`${base}/3`)).json(), {
      id: 3,
      author: "Anne",
      message: "Put",
    });
  });

  await t.step(
    "case folding is the same on both stores: every sigma, dotted I as i̇",
    async () => {
      for (const [author, message] of [["İstanbul", "ΣΊΣΥΦΟΣ rolls"]]) {
        const response = await fetch(base, {
          method: "POST",
          body: JSON.stringify({ author, message }),
        });
        assert.equal(response.status, 201);
        await response.body?.cancel();
      }
      for (
        const query of [
          "q=%CE%A3%CE%8A%CE%A3",
          "q=%CF%83%CE%AF%CF%83%CF%85%CF%86%CE%BF%CF%82",
          "message_like=%CE%A3%CE%8A%CE%A3%CE%A5%CE%A6%CE%9F%CE%A3",
          "q=i%CC%87stanbul",
          "author_like=%C4%B0ST",
          "author_like=%C4%B0",
        ]
      ) {
        const { response, json } = await get(`${base}?${query}`);
        assert.equal(response.status, 200, query);
        assert.deepEqual(json().map((r: { id: number }) => r.id), [13], query);
      }
      // İ folds to i̇ as toLowerCase() has it (json-server's q), not to a plain i.
      const plain = await get(`${base}?q=istanbul`);
      assert.deepEqual(plain.json(), []);
    },
  );

  await t.step("a text filter holding NUL: 400 naming it", async () => {
    for (const name of ["q", "author", "message_ne", "author_like"]) {
      const { response, json } = await get(`${base}?${name}=a%00`);
      assert.equal(response.status, 400, name);
      assert.match(json().message, new RegExp(`^Invalid ${name} "`), name);
    }
  });

  await t.step("an empty _start…_end window: no NaN, no next", async () => {
    const { response, json } = await get(`${base}?_start=3&_end=3`);
    assert.equal(response.status, 200);
    assert.deepEqual(json(), []);
    const link = response.headers.get("link") ?? "";
    assert.ok(!link.includes("NaN"), link);
    assert.equal(links(link).next, undefined, link);
  });
}

Deno.test("messages list queries through main.ts on SQLite", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "messages-query-" });
  const { main, base } = await startMessages({
    MESSAGES_DB: `${dir}/m.sqlite3`,
  });
  try {
    await runCases(t, base);
  } finally {
    assert.equal(await main.stop(), 0);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "messages list queries through main.ts on PostgreSQL",
  ignore: postgres.ignore,
  async fn(t) {
    assert.ok(postgres.bin, "PostgreSQL is required when CI=true");
    const pg = await startPostgres(postgres.bin);
    try {
      const url = await pg.createDatabase("queries");
      const { main, base } = await startMessages({ MESSAGES_DB: url });
      try {
        await runCases(t, base);
      } finally {
        assert.equal(await main.stop(), 0);
      }
      const output = [...main.stdout, ...main.stderr].join("\n");
      assert.ok(!output.includes(pg.password), "the password never shows");
      assert.match(output, /messages database postgres:\/\/homewire:\*\*\*@/);
    } finally {
      await pg.stop();
    }
  },
});

Deno.test("messages on one SQLite file: a write through one process changes the other's tags", async () => {
  const dir = await Deno.makeTempDir({ prefix: "messages-query-" });
  const db = `${dir}/m.sqlite3`;
  const a = await startMessages({ MESSAGES_DB: db });
  const b = await startMessages({ MESSAGES_DB: db });
  try {
    const tagOf = async (url: string, headers: Record<string, string> = {}) => {
      const response = await fetch(url, { headers });
      await response.body?.cancel();
      return { status: response.status, etag: response.headers.get("etag") };
    };
    const created = await fetch(a.base, {
      method: "POST",
      body: JSON.stringify({ author: "Ada", message: "one" }),
    });
    assert.equal(created.status, 201);
    await created.body?.cancel();
    const paths = ["", "?_page=1&_limit=5", "/1"];
    const before = await Promise.all(paths.map((p) => tagOf(`${b.base}${p}`)));
    const patched = await fetch(`${a.base}/1`, {
      method: "PATCH",
      body: JSON.stringify({ message: "two" }),
    });
    assert.equal(patched.status, 200);
    await patched.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (const [i, path] of paths.entries()) {
      const after = await tagOf(`${b.base}${path}`, {
        "if-none-match": before[i]!.etag!,
      });
      assert.equal(after.status, 200, path);
      assert.notEqual(after.etag, before[i]!.etag, path);
    }
  } finally {
    assert.equal(await a.main.stop(), 0);
    assert.equal(await b.main.stop(), 0);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("messages: a list query whose Host header makes no URL responds 400, not 500", async () => {
  const dir = await Deno.makeTempDir({ prefix: "messages-query-" });
  const { main, base } = await startMessages({
    MESSAGES_DB: `${dir}/m.sqlite3`,
  });
  try {
    const { port } = new URL(base);
    for (const host of ["a b", "[::1", "h:99999"]) {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port: +port });
      await conn.write(
        new TextEncoder().encode(
          `GET ${PATH}?_page=1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
        ),
      );
      const reply = await new Response(conn.readable).text();
      assert.match(reply, /^HTTP\/1\.1 400 /, `${host}: ${reply}`);
      assert.match(reply, /"Invalid Host header \\"/, reply);
    }
  } finally {
    assert.equal(await main.stop(), 0);
    await Deno.remove(dir, { recursive: true });
  }
  const output = [...main.stdout, ...main.stderr].join("\n");
  assert.doesNotMatch(output, /\[ERROR\]/, output);
});

Deno.test({
  name: "messages on a PostgreSQL database that is not UTF-8 still searches",
  ignore: postgres.ignore,
  async fn() {
    assert.ok(postgres.bin, "PostgreSQL is required when CI=true");
    const pg = await startPostgres(postgres.bin);
    try {
      await pg.psql(
        `CREATE DATABASE latin ENCODING 'LATIN1' LC_CTYPE 'C' LC_COLLATE 'C' TEMPLATE template0`,
      );
      const { main, base } = await startMessages({
        MESSAGES_DB: pg.url("latin"),
      });
      try {
        const created = await fetch(base, {
          method: "POST",
          body: JSON.stringify({ author: "Ädä", message: "Hello there" }),
        });
        assert.equal(created.status, 201);
        await created.body?.cancel();
        for (
          const query of ["q=HELLO", "author_like=d", "message_like=there"]
        ) {
          const { response, json } = await get(`${base}?${query}`);
          assert.equal(response.status, 200, query);
          assert.deepEqual(json().map((r: { id: number }) => r.id), [1], query);
        }
      } finally {
        assert.equal(await main.stop(), 0);
      }
    } finally {
      await pg.stop();
    }
  },
});
