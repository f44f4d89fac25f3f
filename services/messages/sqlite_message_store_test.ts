import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  MessageIdsExhaustedError,
  MessageStoreBusyError,
} from "./message_store.ts";
import { openSqliteMessageStore } from "./sqlite_message_store.ts";
import { parseListQuery } from "./list_query.ts";

function tempDb(): { path: string; [Symbol.dispose](): void } {
  const dir = Deno.makeTempDirSync({ prefix: "messages-store-" });
  return {
    path: `${dir}/sub/dir/m.db`,
    [Symbol.dispose]: () => Deno.removeSync(dir, { recursive: true }),
  };
}

Deno.test("openSqliteMessageStore() creates the folder and keeps records across reopen", async () => {
  using db = tempDb();
  const path = db.path;
  const first = openSqliteMessageStore(path);
  await first.create({ author: "Ada", message: "One" });
  await first.create({ author: "Bo", message: "Two" });
  await first.update(2, { author: "Bo", message: "Deux" });
  await first.close();
  const second = openSqliteMessageStore(path);
  try {
    assert.deepEqual(await second.list(), [
      { id: 1, author: "Ada", message: "One" },
      { id: 2, author: "Bo", message: "Deux" },
    ]);
    assert.equal((await second.create({ author: "C", message: "3" })).id, 3);
  } finally {
    await second.close();
  }
});

Deno.test("openSqliteMessageStore() runs in WAL mode", async () => {
  using db = tempDb();
  const path = db.path;
  await openSqliteMessageStore(path).close();
  const header = Deno.readFileSync(path).subarray(18, 20);
  assert.deepEqual([...header], [2, 2]); // file format versions 2 = WAL
});

Deno.test("openSqliteMessageStore() gives undefined/false for missing records", async () => {
  const store = openSqliteMessageStore(":memory:");
  try {
    assert.equal(await store.get(1), undefined);
    assert.equal(
      await store.update(1, { author: "a", message: "b" }),
      undefined,
    );
    assert.equal(await store.delete(1), false);
    assert.deepEqual(await store.list(), []);
  } finally {
    await store.close();
  }
});

Deno.test("openSqliteMessageStore() ids follow the highest id across connections", async () => {
  using db = tempDb();
  const path = db.path;
  const a = openSqliteMessageStore(path);
  const b = openSqliteMessageStore(path);
  try {
    const ids = [];
    for (let i = 0; i < 10; i++) {
      ids.push(
        (await (i % 2 ? a : b).create({ author: "x", message: `${i}` })).id,
      );
    }
    assert.deepEqual(ids, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  } finally {
    await a.close();
    await b.close();
  }
});

Deno.test("openSqliteMessageStore() revision moves on writes from any connection", async () => {
  using db = tempDb();
  const path = db.path;
  const a = openSqliteMessageStore(path, { outsideWritesMs: 0 });
  const b = openSqliteMessageStore(path, { outsideWritesMs: 0 });
  try {
    const start = a.revision();
    assert.equal(a.revision(), start);
    await a.create({ author: "x", message: "1" });
    const afterOwn = a.revision();
    assert.notEqual(afterOwn, start);
    const seenByB = b.revision();
    await b.create({ author: "y", message: "2" });
    assert.notEqual(b.revision(), seenByB);
    assert.notEqual(a.revision(), afterOwn);
    assert.equal((await a.list()).length, 2);
    const quiet = a.revision();
    assert.equal(await a.update(9, { author: "z", message: "z" }), undefined);
    assert.equal(await a.delete(9), false);
    assert.equal(a.revision(), quiet);
  } finally {
    await a.close();
    await b.close();
  }
});

Deno.test("openSqliteMessageStore() revision moves at once on own writes, within the delay on outside ones", async () => {
  using db = tempDb();
  const a = openSqliteMessageStore(db.path, { outsideWritesMs: 200 });
  const b = openSqliteMessageStore(db.path);
  try {
    const start = a.revision();
    for (
      const write of [
        () => a.create({ author: "x", message: "1" }),
        () => a.update(1, { author: "x", message: "2" }),
        () => a.delete(1),
      ]
    ) {
      const before = a.revision();
      await write();
      assert.notEqual(a.revision(), before);
    }
    const quiet = a.revision();
    assert.notEqual(quiet, start);
    await b.create({ author: "y", message: "3" });
    assert.equal(a.revision(), quiet, "checked at most once per 200 ms");
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.notEqual(a.revision(), quiet);
  } finally {
    await a.close();
    await b.close();
  }
});

Deno.test("openSqliteMessageStore() gives up on a write lock held elsewhere within about 250 ms, losing nothing", async () => {
  using db = tempDb();
  const store = openSqliteMessageStore(db.path);
  await store.create({ author: "Ada", message: "One" });
  // Another process's connection, as the sqlite3 shell would hold it.
  const other = new DatabaseSync(db.path);
  try {
    other.exec("BEGIN IMMEDIATE");
    other.exec("INSERT INTO messages VALUES (2, 'Bo', 'Held')");
    const writes = {
      create: () => store.create({ author: "Cy", message: "Blocked" }),
      update: () => store.update(1, { author: "Cy", message: "Blocked" }),
      delete: () => store.delete(1),
    };
    for (const [name, write] of Object.entries(writes)) {
      const started = performance.now();
      await assert.rejects(write, (error: unknown) => {
        assert.ok(error instanceof MessageStoreBusyError, String(error));
        assert.match(String((error.cause as Error).message), /locked/);
        return true;
      });
      const waited = performance.now() - started;
      assert.ok(waited >= 200 && waited < 1000, `${name} waited ${waited} ms`);
    }
    // WAL: reads go on while another connection writes.
    assert.deepEqual(await store.list(), [{
      id: 1,
      author: "Ada",
      message: "One",
    }]);
    other.exec("COMMIT");
    assert.equal(
      (await store.create({ author: "Cy", message: "Retried" })).id,
      3,
    );
    assert.deepEqual(await store.list(), [
      { id: 1, author: "Ada", message: "One" },
      { id: 2, author: "Bo", message: "Held" },
      { id: 3, author: "Cy", message: "Retried" },
    ]);
  } finally {
    other.close();
    await store.close();
  }
});

Deno.test("openSqliteMessageStore() creates the folder of an SQLite URI's file", async () => {
  using db = tempDb();
  const store = openSqliteMessageStore(`file:${db.path}?mode=rwc`);
  await store.create({ author: "Ada", message: "One" });
  await store.close();
  const check = new DatabaseSync(db.path);
  try {
    assert.deepEqual(
      { ...check.prepare("SELECT author FROM messages").get() },
      { author: "Ada" },
    );
  } finally {
    check.close();
  }
});

Deno.test("openSqliteMessageStore() stores nothing once the highest id is the largest safe integer", async () => {
  using db = tempDb();
  const store = openSqliteMessageStore(db.path);
  const other = new DatabaseSync(db.path);
  try {
    // Written by another tool: one id at the limit, one beyond any JSON client.
    other.exec(
      `INSERT INTO messages VALUES (${Number.MAX_SAFE_INTEGER}, 'max', 'm')`,
    );
    await assert.rejects(
      () => store.create({ author: "n", message: "m" }),
      (error) =>
        error instanceof MessageIdsExhaustedError &&
        /delete or renumber/.test(error.message),
    );
    other.exec("INSERT INTO messages VALUES (9007199254740993, 'huge', 'h')");
    await assert.rejects(
      () => store.create({ author: "n", message: "m" }),
      MessageIdsExhaustedError,
    );
    const count = other.prepare("SELECT COUNT(*) AS n FROM messages").get();
    assert.equal(count?.n, 2);
    assert.deepEqual(await store.list(), [
      { id: Number.MAX_SAFE_INTEGER, author: "max", message: "m" },
    ]);
  } finally {
    other.close();
    await store.close();
  }
});

Deno.test("openSqliteMessageStore() leaves an SQLite URI it cannot place to SQLite", () => {
  using db = tempDb();
  // Another host: SQLite refuses it, and no folder is made for it meanwhile.
  const host = `homewire-test-${crypto.randomUUID()}`;
  assert.throws(() => openSqliteMessageStore(`file://${host}${db.path}`));
  assert.throws(() => Deno.statSync(`/${host}`), Deno.errors.NotFound);
  // Malformed escapes: SQLite's own error, not the decoder's "URI malformed".
  assert.throws(
    () => openSqliteMessageStore(`file:${db.path}%zz`),
    (error) => error instanceof Error && !/URI malformed/.test(error.message),
  );
});

Deno.test("openSqliteMessageStore() lets SQLite checkpoint its log while creates and updates run", async () => {
  using db = tempDb();
  const store = openSqliteMessageStore(db.path);
  try {
    // 4,000 writes of 1 KiB: 20 MB of log pages had nothing been checkpointed
    // (a RETURNING statement left open pins the log: 165 MB for 20,000 pairs).
    const text = "x".repeat(1024);
    for (let i = 1; i <= 2000; i++) {
      await store.create({ author: "a", message: text });
      await store.update(i, { author: "b" });
    }
    const wal = Deno.statSync(`${db.path}-wal`).size;
    assert.ok(wal < 8 * 1024 * 1024, `-wal file of ${wal} bytes`);
    // The database file itself holds the rows (checkpointed, not only logged).
    assert.ok(Deno.statSync(db.path).size > 2000 * 1024);
  } finally {
    await store.close();
  }
});

Deno.test("openSqliteMessageStore() serves a BLOB another tool wrote as text", async () => {
  using db = tempDb();
  const store = openSqliteMessageStore(db.path);
  // The sqlite3 shell stores x'..' as a BLOB whatever the column's type.
  const other = new DatabaseSync(db.path);
  try {
    other.exec(
      "INSERT INTO messages VALUES (1, x'416461', x'68c3a96c6c6fff')",
    );
    other.exec("UPDATE messages SET author = x'426f' WHERE id = 1");
  } finally {
    other.close();
  }
  const before = { id: 1, author: "Ada", message: "héllo\ufffd" };
  const record = { id: 1, author: "Bo", message: "héllo\ufffd" };
  try {
    assert.deepEqual(await store.get(1), record);
    assert.deepEqual(await store.list(), [record]);
    const { query } = parseListQuery(new URLSearchParams("q=HÉ"));
    assert.deepEqual((await store.query(query)).records, [record]);
    // Filtered and sorted as the text it is served as.
    const found = async (search: string) => {
      const { query } = parseListQuery(new URLSearchParams(search));
      return (await store.query(query)).records.map((r) => r.id);
    };
    await store.create({ author: "Ann", message: "m" });
    assert.deepEqual(await found("author=Bo"), [1]);
    assert.deepEqual(await found("author_ne=Bo"), [2]);
    assert.deepEqual(await found("author=Bo&author=Ann"), [1, 2]);
    assert.deepEqual(await found("_sort=author"), [2, 1]);
    const changes = await store.changesAfter(0, 10);
    assert.deepEqual(changes.slice(0, 2).map((c) => [c.record, c.previous]), [
      [before, undefined],
      [record, before],
    ]);
  } finally {
    await store.close();
  }
});
