/**
 * The `messages` role on SQLite through `main.ts`: the write-ahead log stays small
 * under a long run of writes, the database file holds the rows while the process
 * runs, and `messages backup PATH` copies the database while it serves.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { type MainProcess, startMain } from "./_test_helpers.ts";

const PATH = "/api/message/resource";
/** SQLite's automatic checkpoint keeps the log near 4 MB; four times that is ours. */
const WAL_BOUND_BYTES = 16 * 1024 * 1024;
const WRITES = 100_000;
const CONCURRENCY = 32;

async function startMessages(
  db: string,
): Promise<{ main: MainProcess; base: string }> {
  const main = startMain(["messages"], {
    env: { MESSAGES_HOST: "127.0.0.1", MESSAGES_PORT: "0", MESSAGES_DB: db },
  });
  const line = await main.waitFor(/messages listening on http:\/\/\S+/);
  return { main, base: `${/http:\/\/\S+/.exec(line)![0]}${PATH}` };
}

function tempDir(): { path: string; [Symbol.dispose](): void } {
  const path = Deno.makeTempDirSync({ prefix: "messages-sqlite-log-" });
  return {
    path,
    [Symbol.dispose]: () => Deno.removeSync(path, { recursive: true }),
  };
}

async function send(
  url: string,
  method: string,
  body: unknown,
  status: number,
): Promise<{ id?: number }> {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.equal(response.status, status, `${method} ${url}`);
  return await response.json();
}

/** Rows in `file`, read with a connection of our own (log included). */
function countRows(file: string): number {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const row = db.prepare("SELECT COUNT(*) AS n FROM messages").get();
    return Number(row?.n);
  } finally {
    db.close();
  }
}

/** Rows in the database file alone: a copy of it without its `-wal` file. */
function countRowsInFile(file: string, dir: string): number {
  const copy = `${dir}/main-file-only.sqlite3`;
  Deno.copyFileSync(file, copy);
  try {
    return countRows(copy);
  } finally {
    for (const suffix of ["", "-wal", "-shm"]) {
      Deno.removeSync(`${copy}${suffix}`, { recursive: true });
    }
  }
}

Deno.test({
  name:
    `messages on SQLite keeps its -wal file under ${WAL_BOUND_BYTES} bytes through ${WRITES} creates and updates, its database file holding the rows`,
  sanitizeResources: false,
  async fn() {
    using dir = tempDir();
    const db = `${dir.path}/messages.sqlite3`;
    const { main, base } = await startMessages(db);
    let largestWal = 0;
    let sampling = true;
    let stopped = false;
    const sampler = (async () => {
      while (sampling) {
        const size = await Deno.stat(`${db}-wal`).then((s) => s.size, () => 0);
        largestWal = Math.max(largestWal, size);
        // Past the bound the verdict is known: the writers stop early.
        if (largestWal >= WAL_BOUND_BYTES) stopped = true;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    try {
      // Each worker creates a record, then updates it: WRITES requests in all.
      const pairs = WRITES / 2;
      let next = 0;
      const worker = async () => {
        while (next < pairs && !stopped) {
          const n = next++;
          const { id } = await send(base, "POST", {
            author: `a${n}`,
            message: `message ${n}`,
          }, 201);
          await send(`${base}/${id}`, "PATCH", { message: `edited ${n}` }, 200);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      sampling = false;
      await sampler;
      assert.ok(
        largestWal < WAL_BOUND_BYTES,
        `the -wal file reached ${largestWal} bytes`,
      );
      // While the process runs: every row is readable, and nearly all of them
      // are in the database file itself (what the last checkpoints left in the
      // log is at most its 4 MB).
      assert.equal(countRows(db), pairs);
      const inFile = countRowsInFile(db, dir.path);
      assert.ok(
        inFile >= pairs * 0.9,
        `${inFile} of ${pairs} rows in the file`,
      );
    } finally {
      sampling = false;
      await sampler;
      assert.equal(await main.stop("SIGTERM"), 0);
    }
  },
});

Deno.test({
  name:
    "messages backup PATH copies the SQLite database while the role serves and writes go on",
  sanitizeResources: false,
  async fn() {
    using dir = tempDir();
    const db = `${dir.path}/messages.sqlite3`;
    const backup = `${dir.path}/backups/copy.sqlite3`;
    Deno.mkdirSync(`${dir.path}/backups`);
    const { main, base } = await startMessages(db);
    try {
      for (let i = 0; i < 500; i++) {
        await send(base, "POST", { author: "a", message: `before ${i}` }, 201);
      }
      // Writes go on while the copy is taken, in another process.
      let writing = true;
      let during = 0;
      const writer = (async () => {
        while (writing) {
          await send(base, "POST", { author: "b", message: "during" }, 201);
          during++;
        }
      })();
      const run = startMain(["messages", "backup", backup], {
        env: { MESSAGES_DB: db },
      });
      const code = await run.exited();
      writing = false;
      await writer;
      assert.equal(code, 0, [...run.stdout, ...run.stderr].join("\n"));
      assert.ok(
        run.stderr.some((line) =>
          line.includes(`backed up to ${backup}`) && line.includes("[INFO]")
        ),
        run.stderr.join("\n"),
      );
      assert.ok(during > 0, "no write completed during the backup");
      // The copy opens on its own, with no log beside it, holding a snapshot.
      assert.throws(() => Deno.statSync(`${backup}-wal`), Deno.errors.NotFound);
      const copied = countRows(backup);
      assert.ok(
        copied >= 500 && copied <= 500 + during,
        `${copied} rows copied`,
      );
      const copy = new DatabaseSync(backup, { readOnly: true });
      try {
        const first = copy.prepare(
          "SELECT id, author, message FROM messages ORDER BY id LIMIT 1",
        ).get();
        assert.deepEqual({ ...first }, {
          id: 1,
          author: "a",
          message: "before 0",
        });
      } finally {
        copy.close();
      }
      // A second copy to the same path is refused: nothing is overwritten.
      const again = startMain(["messages", "backup", backup], {
        env: { MESSAGES_DB: db },
      });
      assert.equal(await again.exited(), 1);
      assert.ok(
        again.stderr.some((line) => /output file already exists/.test(line)),
        again.stderr.join("\n"),
      );
      assert.equal(countRows(backup), copied);
    } finally {
      assert.equal(await main.stop("SIGTERM"), 0);
    }
  },
});

Deno.test("messages backup refuses a PostgreSQL or in-memory MESSAGES_DB, and a missing PATH, with exit code 2", async () => {
  const cases: [string[], string, RegExp][] = [
    [
      ["messages", "backup", "/tmp/x"],
      "postgres://app:secret@127.0.0.1:1/app",
      /pg_dump/,
    ],
    [["messages", "backup", "/tmp/x"], ":memory:", /is not one/],
    [["messages", "backup"], "./m.sqlite3", /Missing PATH/],
    [
      ["messages", "restore", "/tmp/x"],
      "./m.sqlite3",
      /Unknown command or role "restore"/,
    ],
  ];
  for (const [args, db, message] of cases) {
    const run = startMain(args, { env: { MESSAGES_DB: db } });
    assert.equal(await run.exited(), 2, args.join(" "));
    assert.ok(
      run.stderr.some((line) => message.test(line)),
      run.stderr.join("\n"),
    );
    assert.ok(!run.stderr.join("\n").includes("secret"));
  }
});
