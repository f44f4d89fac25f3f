/**
 * The `messages` role's storage through `main.ts`: records survive a restart and
 * kill -9, and ids stay distinct under concurrent creates.
 */
import assert from "node:assert/strict";
import { type MainProcess, startMain } from "./_test_helpers.ts";

const PATH = "/api/message/resource";

interface MessageRecord {
  id: number;
  author: string;
  message: string;
}

async function startMessages(
  db: string,
): Promise<{ main: MainProcess; base: string }> {
  const main = startMain(["messages"], {
    env: { MESSAGES_HOST: "127.0.0.1", MESSAGES_PORT: "0", MESSAGES_DB: db },
  });
  const line = await main.waitFor(/messages listening on http:\/\/\S+/);
  return { main, base: `${/http:\/\/\S+/.exec(line)![0]}${PATH}` };
}

async function create(
  base: string,
  author: string,
  message: string,
): Promise<MessageRecord> {
  const response = await fetch(base, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ author, message }),
  });
  assert.equal(response.status, 201);
  return await response.json();
}

async function list(base: string): Promise<MessageRecord[]> {
  const response = await fetch(base);
  assert.equal(response.status, 200);
  return await response.json();
}

function tempDb(): { path: string; [Symbol.dispose](): void } {
  const dir = Deno.makeTempDirSync({ prefix: "messages-durability-" });
  return {
    path: `${dir}/messages.sqlite3`,
    [Symbol.dispose]: () => Deno.removeSync(dir, { recursive: true }),
  };
}

Deno.test("messages role keeps records across a SIGTERM restart", async () => {
  using db = tempDb();
  const first = await startMessages(db.path);
  try {
    for (let i = 1; i <= 5; i++) await create(first.base, `a${i}`, `m${i}`);
    const updated = await fetch(`${first.base}/2`, {
      method: "POST",
      body: JSON.stringify({ author: "b", message: "changed" }),
    });
    assert.equal(updated.status, 200);
    await updated.body?.cancel();
    const removed = await fetch(`${first.base}/5`, { method: "DELETE" });
    assert.equal(removed.status, 204);
    await removed.body?.cancel();
  } finally {
    assert.equal(await first.main.stop("SIGTERM"), 0);
  }
  const second = await startMessages(db.path);
  try {
    assert.deepEqual(await list(second.base), [
      { id: 1, author: "a1", message: "m1" },
      { id: 2, author: "b", message: "changed" },
      { id: 3, author: "a3", message: "m3" },
      { id: 4, author: "a4", message: "m4" },
    ]);
    assert.equal((await create(second.base, "c", "next")).id, 5);
  } finally {
    assert.equal(await second.main.stop("SIGTERM"), 0);
  }
});

Deno.test("messages role keeps every acknowledged create across kill -9", async () => {
  using db = tempDb();
  const acknowledged: MessageRecord[] = [];
  const first = await startMessages(db.path);
  try {
    // Several writers keep creating; the process is killed right after 60 acks.
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i++) {
        try {
          acknowledged.push(await create(first.base, `w${w}`, `n${i}`));
        } catch {
          return; // the connection died with the process
        }
        if (acknowledged.length >= 60 && !stop) {
          stop = true;
          first.main.child.kill("SIGKILL");
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(writer));
  } finally {
    assert.notEqual(await first.main.stop("SIGKILL"), 0);
  }
  assert.ok(acknowledged.length >= 60);
  const second = await startMessages(db.path);
  try {
    const stored = new Map((await list(second.base)).map((r) => [r.id, r]));
    for (const record of acknowledged) {
      assert.deepEqual(stored.get(record.id), record);
    }
  } finally {
    assert.equal(await second.main.stop("SIGTERM"), 0);
  }
});

Deno.test("messages role gives ids 1..40 to 40 concurrent creates", async () => {
  using db = tempDb();
  const { main, base } = await startMessages(db.path);
  try {
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) => create(base, `a${i}`, `m${i}`)),
    );
    const ids = created.map((r) => r.id).sort((a, b) => a - b);
    assert.deepEqual(ids, Array.from({ length: 40 }, (_, i) => i + 1));
    const stored = await list(base);
    assert.deepEqual(stored, [...created].sort((a, b) => a.id - b.id));
  } finally {
    assert.equal(await main.stop("SIGTERM"), 0);
  }
});

Deno.test("messages role keeps ids distinct with two processes on one database", async () => {
  using db = tempDb();
  const a = await startMessages(db.path);
  const b = await startMessages(db.path);
  try {
    const created = await Promise.all(
      Array.from(
        { length: 40 },
        (_, i) => create(i % 2 ? a.base : b.base, `a${i}`, `m${i}`),
      ),
    );
    const ids = created.map((r) => r.id).sort((x, y) => x - y);
    assert.deepEqual(ids, Array.from({ length: 40 }, (_, i) => i + 1));
    // Each process sees the other's writes in its (cached) list.
    assert.equal((await list(a.base)).length, 40);
    assert.equal((await list(b.base)).length, 40);
  } finally {
    assert.equal(await a.main.stop("SIGTERM"), 0);
    assert.equal(await b.main.stop("SIGTERM"), 0);
  }
});
