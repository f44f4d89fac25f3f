/**
 * The `messages` role on a real PostgreSQL through `main.ts`: start-up failure,
 * several processes on one database (concurrent creates, a table created by
 * processes starting together, tags moved by another process's writes) and the
 * database going away and coming back.
 */
import assert from "node:assert/strict";
import { freePort, type MainProcess, startMain } from "./_test_helpers.ts";
import { requirePostgres, startPostgres } from "./_test_postgres.ts";

const PATH = "/api/message/resource";
const postgres = requirePostgres();

async function startMessages(
  env: Record<string, string>,
): Promise<{ main: MainProcess; base: string }> {
  const main = startMain(["messages"], {
    env: { MESSAGES_HOST: "127.0.0.1", MESSAGES_PORT: "0", ...env },
  });
  const line = await main.waitFor(/messages listening on http:\/\/\S+/, 60_000);
  return { main, base: `${/http:\/\/\S+/.exec(line)![0]}${PATH}` };
}

/**
 * A TCP relay to PostgreSQL that can stop passing anything on without closing a
 * connection (a host gone from the network), and later drop every connection it
 * held (the network back, the old sessions dead).
 */
function startRelay(target: number) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  let frozen = false;
  const pump = async (from: Deno.Conn, to: Deno.Conn) => {
    const buffer = new Uint8Array(64 * 1024);
    try {
      while (true) {
        const n = await from.read(buffer);
        if (n === null) break;
        if (frozen) continue; // swallowed: the peer waits for ever
        for (let sent = 0; sent < n;) {
          sent += await to.write(buffer.subarray(sent, n));
        }
      }
    } catch {
      // closed
    }
    for (const conn of [from, to]) {
      if (open.delete(conn)) conn.close();
    }
  };
  const accepting = (async () => {
    for await (const inbound of listener) {
      open.add(inbound);
      if (frozen) continue; // accepted, never responded to
      const outbound = await Deno.connect({
        hostname: "127.0.0.1",
        port: target,
      });
      open.add(outbound);
      void pump(inbound, outbound);
      void pump(outbound, inbound);
    }
  })().catch(() => {});
  return {
    port: (listener.addr as Deno.NetAddr).port,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const conn of open) conn.close();
      open.clear();
    },
    async close() {
      listener.close();
      for (const conn of open) conn.close();
      await accepting;
    },
  };
}

interface Stored {
  id: number;
  author: string;
  message: string;
}

Deno.test("messages exits 1 with one ERROR naming MESSAGES_DB, password masked, when PostgreSQL cannot be reached", async () => {
  const password = "hunter2-very-secret";
  const db = `postgres://app:${password}@127.0.0.1:${freePort()}/app`;
  const main = startMain(["messages"], {
    env: { MESSAGES_PORT: "0", MESSAGES_DB: db },
  });
  assert.equal(await main.exited(), 1);
  const output = [...main.stdout, ...main.stderr];
  const errors = output.filter((line) => line.includes("[ERROR]"));
  assert.equal(errors.length, 1, output.join("\n"));
  assert.match(
    errors[0]!,
    /Cannot start messages: Cannot open MESSAGES_DB "postgres:\/\/app:\*\*\*@127\.0\.0\.1:\d+\/app": .*ECONNREFUSED/,
  );
  assert.ok(!output.join("\n").includes(password), output.join("\n"));
});

Deno.test("messages exits 1 naming MESSAGES_DB when the database accepts connections but never responds", async () => {
  // A stand-in for a host that stopped responding: it takes the connection and
  // says nothing.
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of silent) held.push(conn);
  })();
  try {
    const password = "quiet-secret";
    const { port } = silent.addr as Deno.NetAddr;
    const started = Date.now();
    const main = startMain(["messages"], {
      env: {
        MESSAGES_PORT: "0",
        MESSAGES_DB: `postgres://app:${password}@127.0.0.1:${port}/app`,
      },
    });
    assert.equal(await main.exited(), 1);
    assert.ok(Date.now() - started < 30_000);
    const output = [...main.stdout, ...main.stderr].join("\n");
    assert.match(
      output,
      /\[ERROR\] Cannot start messages: Cannot open MESSAGES_DB "postgres:\/\/app:\*\*\*@127\.0\.0\.1:\d+\/app": .*(did not respond|CONNECT_TIMEOUT)/,
    );
    assert.ok(!output.includes(password));
  } finally {
    silent.close();
    for (const conn of held) conn.close();
    await accepting.catch(() => {});
  }
});

Deno.test({
  name:
    "messages exits 1 without showing the password when PostgreSQL refuses it",
  ignore: postgres.ignore,
  async fn() {
    assert.ok(postgres.bin, "PostgreSQL is required when CI=true");
    const pg = await startPostgres(postgres.bin);
    try {
      const wrong = "not-the-Password-42";
      const db = pg.url().replace(encodeURIComponent(pg.password), wrong);
      const main = startMain(["messages"], {
        env: { MESSAGES_PORT: "0", MESSAGES_DB: db },
      });
      assert.equal(await main.exited(), 1);
      const output = [...main.stdout, ...main.stderr].join("\n");
      const errors = output.split("\n").filter((l) => l.includes("[ERROR]"));
      assert.equal(errors.length, 1, output);
      assert.match(
        errors[0]!,
        /Cannot open MESSAGES_DB "postgres:\/\/homewire:\*\*\*@127\.0\.0\.1:\d+\/postgres": .*password authentication failed/,
      );
      assert.ok(!output.includes(wrong), output);
      assert.ok(!output.includes(pg.password), output);
    } finally {
      await pg.stop();
    }
  },
});

Deno.test({
  name:
    "three messages processes on one PostgreSQL database: 3,000 concurrent creates get ids 1..3000, each listed once",
  ignore: postgres.ignore,
  async fn(t) {
    assert.ok(postgres.bin, "PostgreSQL is required when CI=true");
    const pg = await startPostgres(postgres.bin);
    const mains: MainProcess[] = [];
    try {
      const url = await pg.createDatabase("shared");
      // Started together on an empty database: each sets up the table.
      const started = await Promise.all(
        [0, 1, 2].map(() => startMessages({ MESSAGES_DB: url })),
      );
      mains.push(...started.map((s) => s.main));
      const bases = started.map((s) => s.base);

      await t.step("3,000 concurrent creates over the three", async () => {
        const statuses = new Map<number, number>();
        const created = await Promise.all(
          Array.from({ length: 3000 }, async (_, i) => {
            const response = await fetch(bases[i % 3]!, {
              method: "POST",
              body: JSON.stringify({ author: `p${i % 3}`, message: `n${i}` }),
            });
            statuses.set(
              response.status,
              (statuses.get(response.status) ?? 0) + 1,
            );
            return await response.json() as Stored;
          }),
        );
        assert.deepEqual([...statuses], [[201, 3000]]);
        const ids = created.map((r) => r.id).sort((a, b) => a - b);
        assert.deepEqual(ids, Array.from({ length: 3000 }, (_, i) => i + 1));
        const byMessage = new Map(created.map((r) => [r.message, r]));
        for (const base of bases) {
          const listed = await (await fetch(base)).json() as Stored[];
          assert.equal(listed.length, 3000);
          assert.deepEqual(listed.map((r) => r.id), ids);
          for (const record of listed) {
            assert.deepEqual(byMessage.get(record.message), record);
          }
        }
        const total = await fetch(`${bases[1]}?_limit=1`);
        assert.equal(total.headers.get("x-total-count"), "3000");
        await total.body?.cancel();
      });

      await t.step(
        "a write through one process changes the tags of the others",
        async () => {
          const tagOf = async (url: string) => {
            const response = await fetch(url);
            await response.body?.cancel();
            return response.headers.get("etag")!;
          };
          const listTag = await tagOf(bases[1]!);
          const pageTag = await tagOf(`${bases[2]}?_sort=-id&_limit=5`);
          const itemTag = await tagOf(`${bases[2]}/7`);
          const patched = await fetch(`${bases[0]}/7`, {
            method: "PATCH",
            body: JSON.stringify({ message: "changed elsewhere" }),
          });
          assert.equal(patched.status, 200);
          await patched.body?.cancel();
          const created = await fetch(bases[0]!, {
            method: "POST",
            body: JSON.stringify({ author: "x", message: "3001" }),
          });
          assert.equal((await created.json()).id, 3001);
          // The other processes learn of it by a notification: within moments.
          const deadline = Date.now() + 5000;
          while (
            await tagOf(`${bases[2]}/7`) === itemTag && Date.now() < deadline
          ) {
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          const item = await fetch(`${bases[2]}/7`, {
            headers: { "if-none-match": itemTag },
          });
          assert.equal(item.status, 200);
          assert.equal((await item.json()).message, "changed elsewhere");
          assert.notEqual(await tagOf(bases[1]!), listTag);
          const page = await fetch(`${bases[2]}?_sort=-id&_limit=5`, {
            headers: { "if-none-match": pageTag },
          });
          assert.equal(page.status, 200);
          assert.equal((await page.json())[0].id, 3001);
        },
      );

      await t.step("a write by another tool shows too", async () => {
        await pg.psql(
          "UPDATE messages SET author = 'psql' WHERE id = 1",
          "shared",
        );
        const deadline = Date.now() + 5000;
        let author = "";
        while (author !== "psql" && Date.now() < deadline) {
          author = (await (await fetch(`${bases[1]}/1`)).json()).author;
          if (author !== "psql") {
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
        assert.equal(author, "psql");
      });

      await t.step(
        "ids stay within 2^53 − 1: 507 past it, larger ones not served",
        async () => {
          await pg.psql(
            `INSERT INTO messages VALUES
             (${Number.MAX_SAFE_INTEGER}, 'edge', 'largest'),
             (${Number.MAX_SAFE_INTEGER + 2}, 'beyond', 'unreadable')`,
            "shared",
          );
          const full = await fetch(bases[0]!, {
            method: "POST",
            body: JSON.stringify({ author: "a", message: "b" }),
          });
          assert.equal(full.status, 507);
          assert.match(
            (await full.json()).message,
            /^No message id is left.*sqlite3 shell or psql/,
          );
          const deadline = Date.now() + 5000;
          let top: Stored[] = [];
          while (Date.now() < deadline) {
            top = await (await fetch(`${bases[2]}?_sort=-id&_limit=1`)).json();
            if (top[0]?.id === Number.MAX_SAFE_INTEGER) break;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          assert.deepEqual(top, [{
            id: Number.MAX_SAFE_INTEGER,
            author: "edge",
            message: "largest",
          }]);
          const listed = await (await fetch(bases[1]!)).json() as Stored[];
          assert.ok(!listed.some((r) => r.author === "beyond"));
        },
      );

      await t.step(
        "a user who may only use the table starts on it",
        async () => {
          await pg.psql(
            `CREATE ROLE clerk LOGIN PASSWORD 'clerk-pw';
           GRANT SELECT, INSERT, UPDATE, DELETE ON messages TO clerk;
           GRANT SELECT, DELETE ON message_changes TO clerk;`,
            "shared",
          );
          await pg.psql("DELETE FROM messages WHERE id > 3001", "shared");
          const clerkUrl = url.replace(/\/\/[^@]*@/, "//clerk:clerk-pw@");
          const clerk = await startMessages({ MESSAGES_DB: clerkUrl });
          mains.push(clerk.main);
          const created = await fetch(clerk.base, {
            method: "POST",
            body: JSON.stringify({ author: "clerk", message: "hello" }),
          });
          assert.equal(created.status, 201);
          assert.equal((await created.json()).id, 3002);
        },
      );
    } finally {
      for (const main of mains) assert.equal(await main.stop(), 0);
      await pg.stop();
    }
    const output = mains.flatMap((m) => [...m.stdout, ...m.stderr]).join("\n");
    assert.ok(!output.includes(pg.password));
  },
});

Deno.test({
  name:
    "three messages processes on PostgreSQL respond 503 while it is down, recover by themselves, and lose nothing acknowledged",
  ignore: postgres.ignore,
  async fn() {
    assert.ok(postgres.bin, "PostgreSQL is required when CI=true");
    const pg = await startPostgres(postgres.bin);
    const mains: MainProcess[] = [];
    try {
      const url = await pg.createDatabase("outage");
      const started = await Promise.all(
        [0, 1, 2].map(() => startMessages({ MESSAGES_DB: url })),
      );
      mains.push(...started.map((s) => s.main));
      const bases = started.map((s) => s.base);
      const acknowledged: Stored[] = [];
      const unavailable: unknown[] = [];
      const others: number[] = [];
      let n = 0;
      let running = true;
      const writer = async (_: unknown, w: number) => {
        while (running) {
          const message = `m${n++}`;
          try {
            // The third process only reads: its cache must learn of the
            // others' writes, across the outage too.
            const response = await fetch(bases[w % 2]!, {
              method: "POST",
              body: JSON.stringify({ author: "w", message }),
            });
            const body = await response.json();
            if (response.status === 201) acknowledged.push(body);
            else if (response.status === 503) {
              unavailable.push(body);
              assert.ok(response.headers.get("retry-after"));
            } else others.push(response.status);
          } catch (error) {
            others.push(-1);
            throw error;
          }
          if (unavailable.length > 0) {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        }
      };
      const writers = Array.from({ length: 6 }, writer);
      const waitFor = async (check: () => boolean, what: string) => {
        const deadline = Date.now() + 20_000;
        while (!check()) {
          if (Date.now() > deadline) throw new Error(`No ${what} in 20 s`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      await waitFor(() => acknowledged.length >= 50, "creates");
      const cached = await (await fetch(bases[2]!)).json() as Stored[];
      assert.ok(cached.length >= 50);
      await pg.pause();
      const before = acknowledged.length;
      await waitFor(() => unavailable.length >= 5, "503 responses");
      const read = await fetch(`${bases[1]}?_page=1`);
      assert.equal(read.status, 503);
      const readBody = await read.json();
      assert.deepEqual(Object.keys(readBody), ["message"]);
      assert.match(readBody.message, /^Database unavailable/);
      await pg.resume();
      await waitFor(
        () => acknowledged.length >= before + 50,
        "creates after the restart",
      );
      running = false;
      await Promise.all(writers);
      assert.deepEqual(others, []);
      // The reader caches its list, then learns of a write elsewhere: it listens
      // again after the restart.
      await (await fetch(bases[2]!)).body?.cancel();
      const last = await fetch(bases[0]!, {
        method: "POST",
        body: JSON.stringify({ author: "w", message: "last" }),
      });
      assert.equal(last.status, 201);
      const lastRecord = await last.json() as Stored;
      acknowledged.push(lastRecord);
      const deadline = Date.now() + 5000;
      let shown = false;
      while (!shown && Date.now() < deadline) {
        const listed = await (await fetch(bases[2]!)).json() as Stored[];
        shown = listed.some((r) => r.id === lastRecord.id);
        if (!shown) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(shown, "the reader never listed the last record");
      for (const body of unavailable) {
        assert.deepEqual(Object.keys(body as object), ["message"]);
      }
      // Each process, its cache included, lists every acknowledged record.
      for (const base of bases) {
        const listed = await (await fetch(base)).json() as Stored[];
        const byId = new Map(listed.map((r) => [r.id, r]));
        for (const record of acknowledged) {
          assert.deepEqual(byId.get(record.id), record);
        }
        const ids = listed.map((r) => r.id);
        assert.deepEqual(
          ids,
          Array.from({ length: ids.length }, (_, i) => i + 1),
        );
      }
      const stderr = mains.flatMap((m) => m.stderr);
      assert.ok(
        stderr.some((line) =>
          /\[WARNING\] POST \/api\/message\/resource responded 503/.test(line)
        ),
      );
      assert.ok(!stderr.join("\n").includes(pg.password));
    } finally {
      for (const main of mains) assert.equal(await main.stop(), 0);
      await pg.stop();
    }
  },
});

Deno.test({
  name:
    "messages on PostgreSQL responds 503 within seconds when the database stops responding, and recovers",
  ignore: postgres.ignore,
  async fn() {
    assert.ok(postgres.bin, "PostgreSQL is required when CI=true");
    const pg = await startPostgres(postgres.bin);
    const relay = startRelay(pg.port);
    let main: MainProcess | undefined;
    try {
      await pg.createDatabase("silent");
      const db = pg.url("silent").replace(`:${pg.port}/`, `:${relay.port}/`);
      const started = await startMessages({ MESSAGES_DB: db });
      main = started.main;
      const create = (message: string) =>
        fetch(started.base, {
          method: "POST",
          body: JSON.stringify({ author: "a", message }),
        });
      const first = await create("before");
      assert.equal(first.status, 201);
      await first.body?.cancel();

      relay.freeze();
      const since = Date.now();
      const stuck = await create("during");
      assert.equal(stuck.status, 503);
      assert.match((await stuck.json()).message, /^Database unavailable/);
      const waited = Date.now() - since;
      assert.ok(waited >= 5_000 && waited < 20_000, `${waited} ms`);

      relay.thaw();
      const deadline = Date.now() + 20_000;
      let status = 0;
      while (status !== 201 && Date.now() < deadline) {
        const again = await create("after");
        status = again.status;
        await again.body?.cancel();
        if (status !== 201) {
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
      assert.equal(status, 201);
      const listed = await (await fetch(started.base)).json() as Stored[];
      assert.deepEqual(listed.at(0)?.message, "before");
      assert.deepEqual(listed.at(-1)?.message, "after");
      assert.ok(!main.stderr.join("\n").includes(pg.password));
    } finally {
      if (main) assert.equal(await main.stop(), 0);
      await relay.close();
      await pg.stop();
    }
  },
});
