/**
 * `deno task bench messages`: the `messages` role (started through `main.ts`) against
 * `npm:json-server` 0.17 serving the same 100 records and against a bare
 * `Deno.serve` responding to a fixed record (the limit of this machine), for list,
 * read-one and create (50 connections; after a 2 s warm-up of each, three 5 s rounds
 * with the targets taking turns, best round of each kept, so a drift of the machine's
 * speed favours no side); then a kill -9 check of the records written under load;
 * then, on 100,000 records, the paged list on SQLite and the PostgreSQL section
 * (see `_messages_large.ts`); then the change feed's lines (see
 * `_messages_feed.ts`).
 *
 * @module
 */
import {
  type BenchProcess,
  freePort,
  type LoadOptions,
  type LoadResult,
  measureAlternating,
  report,
  reportLimit,
  roleV8Args,
  spawn,
  spawnDeno,
  spawnRole,
  waitForHttp,
} from "./_runner.ts";
import { metricsOnOff } from "./_metrics_on_off.ts";
import { runLarge } from "./_messages_large.ts";
import { runFeed } from "./_messages_feed.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const JSON_SERVER_BIN = `${ROOT}node_modules/json-server/lib/cli/bin.js`;
const PATH = "/api/message/resource";
const SECONDS = 5;
const ROUNDS = 3;
const RECORDS = Array.from({ length: 100 }, (_, i) => ({
  id: i + 1,
  author: `Author ${i + 1}`,
  message: `Message number ${
    i + 1
  }: the quick brown fox jumps over the lazy dog`,
}));
const NEW_RECORD = JSON.stringify({
  author: "Bench",
  message: "Written under load",
});

const BARE = `
const body = JSON.stringify(${JSON.stringify(RECORDS[49])});
Deno.serve({ hostname: "127.0.0.1", port: Number(Deno.env.get("PORT")), onListen() {} },
  () => new Response(body, { headers: { "content-type": "application/json" } }));
`;

interface Target {
  name: string;
  list: string;
  item: string;
}

/** Runs the comparison and prints one line per scenario and peer. */
export async function run(): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "bench-messages-" });
  const db = `${dir}/messages.sqlite3`;
  await Deno.writeTextFile(
    `${dir}/db.json`,
    JSON.stringify({ messages: RECORDS }),
  );
  const started: BenchProcess[] = [];
  try {
    const ours = await startOurs(db, started);
    for (const record of RECORDS) {
      const response = await fetch(ours.list, {
        method: "POST",
        body: JSON.stringify(record),
      });
      if (response.status !== 201) throw new Error("Seeding ours failed");
      await response.body?.cancel();
    }
    const jsonServer = await startJsonServer(dir, started);
    const bare = await startBare(started);

    const scenarios: [string, (t: Target) => LoadOptions][] = [
      ["list", (t) => ({ url: t.list })],
      ["read-one", (t) => ({ url: t.item })],
      ["create", (t) => ({
        url: t.list,
        method: "POST",
        body: NEW_RECORD,
        headers: { "content-type": "application/json" },
      })],
    ];
    for (const [name, options] of scenarios) {
      const targets = [ours, jsonServer, bare];
      const results = await measureAlternating(
        targets.map((t) => ({ connections: 50, ...options(t) })),
        { rounds: ROUNDS, seconds: SECONDS },
      );
      for (const [i, result] of results.entries()) {
        if (result.errors > 0) {
          console.log(
            `(${targets[i]!.name}: ${result.errors} failed requests)`,
          );
        }
      }
      const [mine, js, limit] = results as [LoadResult, LoadResult, LoadResult];
      report(`messages ${name} rps vs json-server`, mine.rps, js.rps);
      report(`messages ${name} rps vs bare Deno.serve`, mine.rps, limit.rps);
      if (name === "read-one") {
        reportLimit("messages read-one p99", mine.p99, 5, " ms");
        report("messages read-one p99 ms vs json-server", mine.p99, js.p99);
      }
    }
    await checkKill9(ours, db, started);
  } finally {
    await Promise.all(started.splice(0).map((p) => p.stop()));
  }
  try {
    await runLarge({ seconds: SECONDS, rounds: ROUNDS });
    await runFeed({ seconds: 10, rounds: 2 });
  } finally {
    await Promise.all(started.map((p) => p.stop()));
    await Deno.remove(dir, { recursive: true });
  }
  await metricsOnOff({
    name: "messages read-one rps, metrics on vs off",
    args: ["messages"],
    portSetting: "MESSAGES_PORT",
    env: () => ({ MESSAGES_HOST: "127.0.0.1", MESSAGES_DB: ":memory:" }),
    prepare: async (base) => {
      const response = await fetch(`${base}${PATH}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: NEW_RECORD,
      });
      if (response.status !== 201) throw new Error("Seeding failed");
      await response.body?.cancel();
    },
    request: (base) => ({ url: `${base}${PATH}/1`, connections: 50 }),
    rounds: ROUNDS,
    seconds: SECONDS,
  });
}

async function startOurs(db: string, started: BenchProcess[]) {
  const port = freePort();
  const process = spawnRole(["messages"], {
    cwd: ROOT,
    env: {
      MESSAGES_HOST: "127.0.0.1",
      MESSAGES_PORT: String(port),
      MESSAGES_DB: db,
      LOG_LEVEL: "WARNING",
    },
  });
  started.push(process);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/healthz`);
  return {
    name: "ours",
    list: `${base}${PATH}`,
    item: `${base}${PATH}/50`,
    process,
  };
}

async function startJsonServer(
  dir: string,
  started: BenchProcess[],
): Promise<Target> {
  const port = freePort();
  const args = ["--host", "127.0.0.1", "--port", String(port), "--quiet"];
  const node = await hasNode();
  started.push(
    node
      ? spawn("node", [JSON_SERVER_BIN, ...args, "db.json"], { cwd: dir })
      : spawnDeno("npm:json-server@0.17.4", [...args, "db.json"], { cwd: dir }),
  );
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/messages/1`);
  console.log(`(json-server 0.17.4 runs on ${node ? "node" : "deno"})`);
  return {
    name: "json-server",
    list: `${base}/messages`,
    item: `${base}/messages/50`,
  };
}

async function startBare(started: BenchProcess[]): Promise<Target> {
  const port = freePort();
  started.push(
    spawn(Deno.execPath(), ["eval", ...roleV8Args(), BARE], {
      env: { PORT: String(port) },
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(base);
  return { name: "bare", list: base, item: base };
}

/** Kills ours with SIGKILL after the create load and counts what a restart finds. */
async function checkKill9(
  ours: Awaited<ReturnType<typeof startOurs>>,
  db: string,
  started: BenchProcess[],
) {
  const before = (await (await fetch(ours.list)).json()).length;
  ours.process.child.kill("SIGKILL");
  await ours.process.child.status;
  const again = await startOurs(db, started);
  const after = (await (await fetch(again.list)).json()).length;
  console.log(
    `messages records after kill -9: ${after} of ${before} acknowledged before the kill`,
  );
  if (after !== before) throw new Error("Records were lost across kill -9");
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
