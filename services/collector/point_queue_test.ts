import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { openPointQueue, PointQueueFileError } from "./point_queue.ts";

async function tempFolder(): Promise<string> {
  return await Deno.makeTempDir({ prefix: "homewire-queue-" });
}

Deno.test("openPointQueue() keeps points in a file across a reopen, oldest first", async () => {
  const dir = await tempFolder();
  try {
    // The folder is created.
    const path = `${dir}/data/sub/buffer.sqlite3`;
    const queue = openPointQueue(path);
    queue.add(["a value=1 1", "b value=2 2"]);
    queue.add(["c value=3 3"]);
    assert.equal(queue.size, 3);
    // Used by one collector at a time.
    assert.throws(
      () => openPointQueue(path),
      /^PointQueueFileError: ".*buffer\.sqlite3" is in use by another running collector: give each collector its own file$/,
    );
    // Closed without removing anything, as kill -9 leaves it.
    queue.close();
    const again = openPointQueue(path);
    assert.deepEqual(again.oldest(10).map((p) => p.line), [
      "a value=1 1",
      "b value=2 2",
      "c value=3 3",
    ]);
    const [first, second] = again.oldest(2);
    again.removeThrough(second!);
    assert.deepEqual(again.oldest(10).map((p) => p.line), ["c value=3 3"]);
    assert.ok(first!.id < second!.id);
    again.add(["d value=4 4", "e value=5 5"]);
    again.dropOldest(2);
    assert.deepEqual(again.oldest(10).map((p) => p.line), ["e value=5 5"]);
    again.close();
    const third = openPointQueue(path);
    assert.equal(third.size, 1);
    third.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("openPointQueue(':memory:') keeps points in memory only", () => {
  const queue = openPointQueue(":memory:");
  queue.add(["a value=1 1"]);
  assert.equal(queue.size, 1);
  queue.close();
  assert.equal(openPointQueue(":memory:").size, 0);
});

Deno.test("openPointQueue() refuses a file it cannot use and leaves it as it is", async (t) => {
  const dir = await tempFolder();
  try {
    await t.step("not a database", async () => {
      const path = `${dir}/garbage.sqlite3`;
      const junk = "this is not SQLite, and it is somebody's file\n".repeat(
        100,
      );
      await Deno.writeTextFile(path, junk);
      assert.throws(() => openPointQueue(path), (error: Error) => {
        assert.ok(error instanceof PointQueueFileError);
        assert.match(
          error.message,
          /^cannot read ".*garbage\.sqlite3": file is not a database: move the file away \(it is left as it is\)/,
        );
        return true;
      });
      assert.equal(await Deno.readTextFile(path), junk);
    });
    await t.step("a newer format", () => {
      const path = `${dir}/newer.sqlite3`;
      const db = new DatabaseSync(path);
      db.exec("CREATE TABLE points (id INTEGER PRIMARY KEY, line TEXT)");
      db.exec("INSERT INTO points (line) VALUES ('kept 1')");
      db.exec("PRAGMA user_version = 7");
      db.close();
      assert.throws(
        () => openPointQueue(path),
        /^PointQueueFileError: the file was written by a newer homewire \(buffer format 7; this version reads 1\): upgrade homewire/,
      );
      const check = new DatabaseSync(path);
      assert.equal(
        check.prepare("SELECT line FROM points").get()?.line,
        "kept 1",
      );
      check.close();
    });
    await t.step("another program's database", () => {
      const path = `${dir}/other.sqlite3`;
      const db = new DatabaseSync(path);
      db.exec("CREATE TABLE recipes (name TEXT)");
      db.close();
      assert.throws(
        () => openPointQueue(path),
        /an SQLite database of another program, not a homewire buffer/,
      );
    });
    await t.step("a folder", () => {
      assert.throws(
        () => openPointQueue(dir),
        (error: Error) => error instanceof PointQueueFileError,
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
