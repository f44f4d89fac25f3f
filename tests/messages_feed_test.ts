/**
 * The `messages` change feed through `main.ts`: two processes on one SQLite file
 * and two on one PostgreSQL database send every change to the subscribers of both,
 * in order, with list filters, resuming with `Last-Event-ID` (a `reset` when the
 * change is no longer kept), every acknowledged create reaches every subscriber
 * exactly once across a kill -9, and a subscriber that does not read is closed
 * with the server's memory bounded, then resumes.
 */
import assert from "node:assert/strict";
import { type MainProcess, startMain } from "./_test_helpers.ts";
import { requirePostgres, startPostgres } from "./_test_postgres.ts";
import {
  type EventReader,
  readEvents,
  type StreamEvent,
} from "../services/messages/_test_events.ts";

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

/** Subscribes to `base`'s feed; resolves once the stream has started. */
async function subscribe(
  base: string,
  query = "",
  lastEventId?: string,
): Promise<EventReader> {
  const response = await fetch(`${base}/events${query}`, {
    headers: lastEventId === undefined ? {} : { "last-event-id": lastEventId },
  });
  assert.equal(response.status, 200);
  assert.match(
    response.headers.get("content-type") ?? "",
    /^text\/event-stream/,
  );
  return readEvents(response.body!);
}

async function write(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${base}${path}`, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.ok(response.ok, `${method} ${path}: ${response.status}`);
  return response.status === 204 ? undefined : await response.json();
}

const shape = (events: StreamEvent[]) =>
  events.map((e) => [e.event, Number(e.id), JSON.parse(e.data)]);

/** Changes made on one process, seen by subscribers on the other. */
async function acrossProcesses(
  t: Deno.TestContext,
  [first, second]: string[],
): Promise<void> {
  const all = await subscribe(second!);
  const bob = await subscribe(second!, "?author=bob");
  const like = await subscribe(first!, "?message_like=URGENT&id_gte=2");
  // The streams have started (retry: and the id to resume from came first).
  await Promise.all([all.opened(), bob.opened(), like.opened()]);

  await t.step("every change, in order, on the other process", async () => {
    await write(first!, "POST", "", { author: "bob", message: "one" }); // 1
    await write(first!, "POST", "", { author: "ada", message: "urgent two" }); // 2
    await write(second!, "PATCH", "/1", { message: "urgent one" }); // 3
    await write(first!, "PUT", "/2", { author: "bob", message: "calm" }); // 4
    await write(first!, "PATCH", "/1", { author: "cy" }); // 5
    await write(second!, "DELETE", "/2"); // 6
    assert.deepEqual(shape(await all.take(6)), [
      ["created", 1, { id: 1, author: "bob", message: "one" }],
      ["created", 2, { id: 2, author: "ada", message: "urgent two" }],
      ["updated", 3, { id: 1, author: "bob", message: "urgent one" }],
      ["updated", 4, { id: 2, author: "bob", message: "calm" }],
      ["updated", 5, { id: 1, author: "cy", message: "urgent one" }],
      ["deleted", 6, { id: 2 }],
    ]);
  });

  await t.step("filters apply, a record leaving one is deleted", async () => {
    assert.deepEqual(shape(await bob.take(5)), [
      ["created", 1, { id: 1, author: "bob", message: "one" }],
      ["updated", 3, { id: 1, author: "bob", message: "urgent one" }],
      ["updated", 4, { id: 2, author: "bob", message: "calm" }],
      ["deleted", 5, { id: 1 }],
      ["deleted", 6, { id: 2 }],
    ]);
    assert.deepEqual(shape(await like.take(2)), [
      ["created", 2, { id: 2, author: "ada", message: "urgent two" }],
      ["deleted", 4, { id: 2 }],
    ]);
    await assert.rejects(() => like.next(200), /no event/);
  });

  await t.step("Last-Event-ID (header or parameter) resumes", async () => {
    const lastSeen = all.lastId;
    await all.cancel();
    await write(first!, "POST", "", { author: "dee", message: "missed" }); // 7
    await write(first!, "POST", "", { author: "eve", message: "missed" }); // 8
    const resumed = await subscribe(first!, "", lastSeen);
    assert.deepEqual(shape(await resumed.take(2)).map((e) => e[1]), [7, 8]);
    const byParameter = await subscribe(second!, "?lastEventId=7&author=eve");
    assert.deepEqual(shape(await byParameter.take(1)), [
      ["created", 8, { id: 3, author: "eve", message: "missed" }],
    ]);
    await write(second!, "POST", "", { author: "eve", message: "live" }); // 9
    assert.equal((await byParameter.next()).id, "9");
    assert.equal((await resumed.next()).id, "9");
    await resumed.cancel();
    await byParameter.cancel();
  });

  await t.step("a change no longer kept starts with reset", async () => {
    // MESSAGES_EVENTS_KEEP=10: after 20 more, change 1 is long forgotten.
    for (let i = 0; i < 20; i++) {
      await write(first!, "POST", "", { author: "f", message: `n${i}` });
    }
    await waitUntil(async () => {
      const probe = await subscribe(second!, "", "1");
      const first = await probe.next();
      await probe.cancel();
      return first.event === "reset";
    });
    const kept = await subscribe(first!, "", "25");
    assert.deepEqual(shape(await kept.take(4)).map((e) => e[1]), [
      26,
      27,
      28,
      29,
    ]);
    await kept.cancel();
  });

  await bob.cancel();
  await like.cancel();
}

Deno.test("the change feed across two processes on one SQLite file", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "messages-feed-" });
  const env = {
    MESSAGES_DB: `${dir}/messages.sqlite3`,
    MESSAGES_EVENTS_KEEP: "10",
  };
  const mains: MainProcess[] = [];
  try {
    const started = [await startMessages(env), await startMessages(env)];
    mains.push(...started.map((s) => s.main));
    await acrossProcesses(t, started.map((s) => s.base));
  } finally {
    for (const main of mains) assert.equal(await main.stop(), 0);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test({
  name: "the change feed across two processes on one PostgreSQL database",
  ignore: postgres.ignore,
  async fn(t) {
    assert.ok(postgres.bin, "PostgreSQL is required when CI=true");
    const pg = await startPostgres(postgres.bin);
    const mains: MainProcess[] = [];
    try {
      const url = await pg.createDatabase("feed");
      const env = { MESSAGES_DB: url, MESSAGES_EVENTS_KEEP: "10" };
      const started = await Promise.all([
        startMessages(env),
        startMessages(env),
      ]);
      mains.push(...started.map((s) => s.main));
      const [first, second] = started.map((s) => s.base);
      await acrossProcesses(t, [first!, second!]);
      await t.step("TRUNCATE sends a deleted for every record", async () => {
        const all = await (await fetch(first!)).json() as { id: number }[];
        const events = await subscribe(second!);
        await events.opened();
        // Fewer records than the processes keep changes (10): a larger burst
        // is forgotten by the other process as it reads it, and this one's
        // subscribers get a reset instead (change_feed_test.ts).
        const deleted = all.slice(0, -3);
        for (const { id } of deleted) await write(first!, "DELETE", `/${id}`);
        // (Changes of the steps before may come first, read late by `second`.)
        const lastDeleted = JSON.stringify({ id: deleted.at(-1)!.id });
        while ((await events.next()).data !== lastDeleted);
        const listed = all.slice(-3);
        await pg.psql("TRUNCATE messages", "feed");
        assert.deepEqual(
          shape(await events.take(listed.length)).map((e) => [e[0], e[2]]),
          listed.map(({ id }) => ["deleted", { id }]),
        );
        await write(first!, "POST", "", { author: "a", message: "after" });
        const next = await events.next();
        assert.deepEqual([next.event, JSON.parse(next.data).id], [
          "created",
          1,
        ]);
        await events.cancel();
      });
    } finally {
      for (const main of mains) assert.equal(await main.stop(), 0);
      await pg.stop();
    }
  },
});

Deno.test("every acknowledged create reaches every resuming subscriber once across kill -9", async () => {
  const dir = await Deno.makeTempDir({ prefix: "messages-feed-kill-" });
  const env = { MESSAGES_DB: `${dir}/messages.sqlite3` };
  try {
    const first = await startMessages(env);
    const subscribers = await Promise.all(
      [0, 1, 2].map(() => subscribe(first.base)),
    );
    await Promise.all(subscribers.map((s) => s.opened()));
    const received = subscribers.map(() => [] as number[]);
    const reading = subscribers.map(async (events, i) => {
      try {
        for (;;) {
          const event = await events.next(10_000);
          received[i]!.push(JSON.parse(event.data).id);
        }
      } catch {
        // the process was killed
      }
    });
    // Several writers keep creating; the process is killed right after 80 acks.
    const acknowledged: number[] = [];
    let killed = false;
    await Promise.all(Array.from({ length: 4 }, async (_, w) => {
      for (let n = 0; !killed; n++) {
        try {
          const response = await fetch(first.base, {
            method: "POST",
            body: JSON.stringify({ author: `w${w}`, message: `n${n}` }),
          });
          if (response.status !== 201) break;
          acknowledged.push((await response.json()).id);
          if (acknowledged.length === 80 && !killed) {
            killed = true;
            first.main.child.kill("SIGKILL");
          }
        } catch {
          break;
        }
      }
    }));
    assert.notEqual(await first.main.stop("SIGKILL"), 0);
    await Promise.all(reading);
    const lastIds = subscribers.map((s) => s.lastId);
    const second = await startMessages(env);
    try {
      await Promise.all(subscribers.map(async (_, i) => {
        const resumed = await subscribe(second.base, "", lastIds[i]);
        const ids = received[i]!;
        const missing = () => acknowledged.filter((id) => !ids.includes(id));
        while (missing().length > 0) {
          const event = await resumed.next(5000);
          assert.equal(event.event, "created");
          ids.push(JSON.parse(event.data).id);
        }
        // Creates committed but not acknowledged before the kill may follow (a
        // writer's last one can have the highest id): each once, then nothing.
        for (;;) {
          const event = await resumed.next(300).catch((error) => {
            assert.match(String(error), /no event/);
            return undefined;
          });
          if (event === undefined) break;
          assert.equal(event.event, "created");
          ids.push(JSON.parse(event.data).id);
        }
        await resumed.cancel();
        assert.equal(new Set(ids).size, ids.length, `subscriber ${i}: twice`);
        for (const id of acknowledged) assert.ok(ids.includes(id), `${id}`);
      }));
    } finally {
      assert.equal(await second.main.stop(), 0);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a subscriber that does not read is closed, the server's memory stays bounded, and it resumes once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "messages-feed-slow-" });
  const { main, base } = await startMessages({
    MESSAGES_DB: `${dir}/messages.sqlite3`,
  });
  try {
    const watcher = await subscribe(base);
    // The slow subscriber: its body is not read while the creates go on.
    const slowResponse = await fetch(`${base}/events`);
    assert.equal(slowResponse.status, 200);
    const big = "x".repeat(60_000);
    const created: number[] = [];
    const create = async (n: number) => {
      const record = await write(base, "POST", "", {
        author: "w",
        message: `${n} ${big}`,
      }) as { id: number };
      created.push(record.id);
    };
    const idOf = (event: StreamEvent) => JSON.parse(event.data).id as number;
    // A warm-up, read by the watcher, before the memory is measured.
    for (let n = 0; n < 50; n++) await create(n);
    assert.equal(idOf((await watcher.take(50)).at(-1)!), 50);
    const rss = () =>
      Number(
        /VmRSS:\s+(\d+)/.exec(
          Deno.readTextFileSync(`/proc/${main.child.pid}/status`),
        )?.[1],
      ) / 1024;
    const before = rss();
    let peak = before;
    const sampler = setInterval(() => peak = Math.max(peak, rss()), 20);
    // 1,500 creates of 60 KB: 90 MB of events the slow subscriber leaves unread,
    // against its 1 MB queue (and the sockets' buffers). Measured: the server's RSS
    // grows by ~45 MB with no slow subscriber (its heap and SQLite's, settling),
    // ~50 MB with one, ~135 MB when its queue has no bound.
    const total = 1550;
    const watched = (async () => {
      let last = 50;
      while (last < total) last = idOf(await watcher.next(30_000));
    })();
    try {
      let n = 50;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (n < total) await create(n++);
        }),
      );
      await watched;
    } finally {
      clearInterval(sampler);
    }
    assert.equal(created.length, total);
    assert.ok(
      peak - before < 90,
      `RSS grew by ${(peak - before).toFixed(1)} MB (${
        before.toFixed(1)
      } MB before)`,
    );

    // The server closed the slow stream: it ends after what it sent, with no
    // wait for an event that will not come.
    const slow = readEvents(slowResponse.body!);
    const ids: number[] = [];
    let lastEventId = "";
    const cut = await (async () => {
      for (;;) {
        try {
          const event = await slow.next(10_000);
          ids.push(idOf(event));
          lastEventId = event.id;
        } catch (error) {
          return error as Error;
        }
      }
    })();
    assert.doesNotMatch(cut.message, /no event within/);
    assert.ok(ids.length < total, `${ids.length} events before the close`);

    // It comes back with Last-Event-ID and gets every change exactly once.
    const resumed = await subscribe(base, "", lastEventId);
    while (ids.length < total) ids.push(idOf(await resumed.next(10_000)));
    await assert.rejects(() => resumed.next(300), /no event/);
    created.sort((a, b) => a - b);
    assert.deepEqual(ids, created);
    await resumed.cancel();
    await watcher.cancel();
  } finally {
    assert.equal(await main.stop(), 0);
    await Deno.remove(dir, { recursive: true });
  }
});

async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!await check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
