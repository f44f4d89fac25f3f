/**
 * The 100,000-record part of `deno task bench messages`: the paged list on SQLite,
 * and the PostgreSQL section (paged list, read-one, create, two processes against
 * one), each against json-server 0.17 serving the same records.
 *
 * @module
 */
import { DatabaseSync } from "node:sqlite";
import {
  type BenchProcess,
  freePort,
  load,
  type LoadOptions,
  type LoadResult,
  measureAlternating,
  report,
  spawn,
  spawnDeno,
  spawnRole,
  waitForHttp,
} from "./_runner.ts";
import { findPostgresBin, startPostgres } from "../tests/_test_postgres.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const JSON_SERVER_BIN = `${ROOT}node_modules/json-server/lib/cli/bin.js`;
const PATH = "/api/message/resource";
const COUNT = 100_000;
/** A page of 50 in the middle of the 100,000. */
const PAGE = "?_page=1000&_limit=50";
const ITEM = 50_000;
const NEW_RECORD = JSON.stringify({
  author: "Bench",
  message: "Written under load",
});

const author = (i: number) => `Author ${i}`;
const message = (i: number) =>
  `Message number ${i}: the quick brown fox jumps over the lazy dog`;

/** Options of {@linkcode runLarge}. */
export interface LargeOptions {
  /** Seconds per measured round. */
  seconds: number;
  /** Measured rounds per target. */
  rounds: number;
}

/** Runs the 100,000-record comparisons and prints one line each. */
export async function runLarge(options: LargeOptions): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "bench-messages-large-" });
  const started: BenchProcess[] = [];
  const compare = async (
    name: string,
    targets: LoadOptions[],
    target: number,
  ) => {
    const results = await measureAlternating(
      targets.map((t) => ({ connections: 50, ...t })),
      options,
    );
    const [ours, peer] = results as [LoadResult, LoadResult];
    if (ours.errors > 0) console.log(`(ours: ${ours.errors} failed requests)`);
    if (peer.errors > 0) {
      console.log(`(json-server: ${peer.errors} failed requests)`);
    }
    report(`${name} (target ≥ ${target}x)`, ours.rps, peer.rps);
  };
  try {
    await Deno.writeTextFile(
      `${dir}/db.json`,
      JSON.stringify({
        messages: Array.from({ length: COUNT }, (_, k) => ({
          id: k + 1,
          author: author(k + 1),
          message: message(k + 1),
        })),
      }),
    );
    const jsonServer = await startJsonServer(dir, started);

    const sqlitePath = `${dir}/messages.sqlite3`;
    seedSqlite(sqlitePath);
    const sqlite = await startOurs(sqlitePath, started);
    await checkTotal(`${sqlite}${PAGE}`);
    await compare(
      "messages SQLite list page of 50 of 100,000 rps vs json-server _page",
      [{ url: `${sqlite}${PAGE}` }, { url: `${jsonServer}${PAGE}` }],
      10,
    );
    await started.pop()!.stop();

    const bin = findPostgresBin();
    if (bin === undefined) {
      console.log(
        "(PostgreSQL section skipped: /usr/lib/postgresql/*/bin not found)",
      );
      return;
    }
    const pg = await startPostgres(bin);
    try {
      const url = await pg.createDatabase("bench");
      const first = await startOurs(url, started);
      await pg.psql(
        `INSERT INTO messages
         SELECT g, 'Author ' || g,
           'Message number ' || g || ': the quick brown fox jumps over the lazy dog'
         FROM generate_series(1, ${COUNT}) g`,
        "bench",
      );
      await checkTotal(`${first}${PAGE}`);
      await compare(
        "messages PostgreSQL list page of 50 of 100,000 rps vs json-server _page",
        [{ url: `${first}${PAGE}` }, { url: `${jsonServer}${PAGE}` }],
        10,
      );
      await compare(
        "messages PostgreSQL read-one rps vs json-server",
        [{ url: `${first}/${ITEM}` }, { url: `${jsonServer}/${ITEM}` }],
        5,
      );

      const second = await startOurs(url, started);
      const one = await load({
        url: `${first}/${ITEM}`,
        connections: 50,
        seconds: options.seconds,
      });
      const [a, b] = await Promise.all([first, second].map((base) =>
        load({
          url: `${base}/${ITEM}`,
          connections: 25,
          seconds: options.seconds,
        })
      )) as [LoadResult, LoadResult];
      report(
        "messages PostgreSQL read-one rps, two processes vs one (no target on 2 cores)",
        a.rps + b.rps,
        one.rps,
      );
      await started.pop()!.stop();

      const post = {
        method: "POST",
        body: NEW_RECORD,
        headers: { "content-type": "application/json" },
      };
      await compare(
        "messages PostgreSQL create rps vs json-server",
        [{ url: first, ...post }, { url: jsonServer, ...post }],
        5,
      );
    } finally {
      await Promise.all(started.splice(0).map((p) => p.stop()));
      await pg.stop();
    }
  } finally {
    await Promise.all(started.map((p) => p.stop()));
    await Deno.remove(dir, { recursive: true });
  }
}

/** Writes the 100,000 records into a new SQLite file with the role's schema. */
function seedSqlite(path: string): void {
  const db = new DatabaseSync(path);
  try {
    db.exec(`CREATE TABLE messages (
      id INTEGER PRIMARY KEY,
      author TEXT NOT NULL,
      message TEXT NOT NULL
    )`);
    const insert = db.prepare("INSERT INTO messages VALUES (?, ?, ?)");
    db.exec("BEGIN");
    for (let i = 1; i <= COUNT; i++) insert.run(i, author(i), message(i));
    db.exec("COMMIT");
  } finally {
    db.close();
  }
}

async function checkTotal(url: string): Promise<void> {
  const response = await fetch(url);
  const page = await response.json();
  const total = response.headers.get("x-total-count");
  if (total !== String(COUNT) || page.length !== 50) {
    throw new Error(`Seeding failed: ${url} gave ${page.length} of ${total}`);
  }
}

async function startOurs(db: string, started: BenchProcess[]) {
  const port = freePort();
  started.push(spawnRole(["messages"], {
    cwd: ROOT,
    env: {
      MESSAGES_HOST: "127.0.0.1",
      MESSAGES_PORT: String(port),
      MESSAGES_DB: db,
      LOG_LEVEL: "WARNING",
    },
  }));
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/healthz`);
  return `${base}${PATH}`;
}

async function startJsonServer(
  dir: string,
  started: BenchProcess[],
): Promise<string> {
  const port = freePort();
  const args = ["--host", "127.0.0.1", "--port", String(port), "--quiet"];
  started.push(
    await hasNode()
      ? spawn("node", [JSON_SERVER_BIN, ...args, "db.json"], { cwd: dir })
      : spawnDeno("npm:json-server@0.17.4", [...args, "db.json"], { cwd: dir }),
  );
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/messages/1`, 60_000);
  return `${base}/messages`;
}

async function hasNode(): Promise<boolean> {
  try {
    const { success } = await new Deno.Command("node", { args: ["--version"] })
      .output();
    return success;
  } catch {
    return false;
  }
}
