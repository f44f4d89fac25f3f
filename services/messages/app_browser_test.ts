import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createMessagesApp, EVENTS_PATH, MESSAGES_PATH } from "./app.ts";
import { createChangeFeed } from "./change_feed.ts";
import { openSqliteMessageStore } from "./sqlite_message_store.ts";
import { readEvents } from "./_test_events.ts";

const PAGE = "http://localhost:5173";
/** The names of the CORS headers of `response`. */
const corsHeaders = (response: Response) =>
  [...response.headers.keys()].filter((name) =>
    name.startsWith("access-control-")
  );
const preflight = (origin: string) => ({
  method: "OPTIONS",
  headers: {
    origin,
    "access-control-request-method": "PATCH",
    "access-control-request-headers": "authorization, content-type",
  },
});

Deno.test("createMessagesApp() with allowOrigin responds to listed pages only", async () => {
  const store = openSqliteMessageStore(":memory:");
  const app = createMessagesApp({
    store,
    log: createMemoryLog(),
    token: "t",
    allowOrigin: [PAGE],
  });
  try {
    const asked = await app.request(`${MESSAGES_PATH}/1`, preflight(PAGE));
    assert.equal(asked.status, 204);
    assert.equal(asked.headers.get("access-control-allow-origin"), PAGE);
    assert.match(asked.headers.get("access-control-allow-methods")!, /PATCH/);
    assert.match(
      asked.headers.get("access-control-allow-headers")!,
      /Authorization, Content-Type/,
    );
    const list = await app.request(`${MESSAGES_PATH}?_page=1`, {
      headers: { origin: PAGE },
    });
    assert.equal(list.headers.get("access-control-allow-origin"), PAGE);
    assert.equal(list.headers.get("vary"), "Origin");
    assert.equal(
      list.headers.get("access-control-expose-headers"),
      "X-Total-Count, Link, ETag",
    );
    await list.body?.cancel();
    const unlisted = await app.request(`${MESSAGES_PATH}?_page=1`, {
      headers: { origin: "http://evil.example" },
    });
    assert.deepEqual(corsHeaders(unlisted), []);
    await unlisted.body?.cancel();
    const other = await app.request(
      `${MESSAGES_PATH}/1`,
      preflight("http://evil.example"),
    );
    assert.equal(other.status, 403);
    assert.match((await other.json()).message, /MESSAGES_ALLOW_ORIGIN/);
  } finally {
    await store.close();
  }
});

Deno.test("createMessagesApp() without allowOrigin sends no CORS header", async () => {
  const store = openSqliteMessageStore(":memory:");
  const app = createMessagesApp({ store, log: createMemoryLog() });
  try {
    const read = await app.request(MESSAGES_PATH, {
      headers: { origin: PAGE },
    });
    assert.equal(read.headers.get("access-control-allow-origin"), null);
    await read.body?.cancel();
    const query = await app.request(`${MESSAGES_PATH}?_page=1`, {
      headers: { origin: PAGE },
    });
    assert.deepEqual(corsHeaders(query), []);
    await query.body?.cancel();
    const asked = await app.request(`${MESSAGES_PATH}/1`, preflight(PAGE));
    assert.equal(asked.headers.get("access-control-allow-origin"), null);
    assert.notEqual(asked.status, 204);
    await asked.body?.cancel();
  } finally {
    await store.close();
  }
});

Deno.test("createMessagesApp() with a feed streams events and checks its parameters", async () => {
  const store = openSqliteMessageStore(":memory:");
  const feed = createChangeFeed({ store, log: createMemoryLog(), pollMs: 1 });
  const app = createMessagesApp({ store, log: createMemoryLog(), feed });
  try {
    const response = await app.request(`${EVENTS_PATH}?author=ada`);
    assert.equal(response.status, 200);
    assert.equal(
      response.headers.get("content-type"),
      "text/event-stream; charset=utf-8",
    );
    const events = readEvents(response.body!);
    await events.opened();
    await store.create({ author: "bob", message: "no" });
    await store.create({ author: "ada", message: "yes" });
    const event = await events.next();
    assert.deepEqual([event.event, event.id, JSON.parse(event.data)], [
      "created",
      "2",
      { id: 2, author: "ada", message: "yes" },
    ]);
    await events.cancel();
    // Paging and sort are ignored, whatever their values.
    const paged = await app.request(
      `${EVENTS_PATH}?author=ada&_page=0&_limit=5000&_sort=bogus&_order=up`,
    );
    assert.equal(paged.status, 200);
    await paged.body?.cancel();
    for (
      const [path, headers] of [
        [`${EVENTS_PATH}?lastEventId=x`, {}],
        [EVENTS_PATH, { "last-event-id": "-1" }],
        [`${EVENTS_PATH}?id_gte=a`, {}],
      ] as const
    ) {
      const bad = await app.request(path, { headers });
      assert.equal(bad.status, 400, path);
      await bad.body?.cancel();
    }
    const posted = await app.request(EVENTS_PATH, { method: "POST" });
    assert.equal(posted.status, 405);
    assert.equal(posted.headers.get("allow"), "GET, HEAD");
    await posted.body?.cancel();
  } finally {
    feed.close();
    await store.close();
  }
});

Deno.test("createMessagesApp() wakes its feed on each write: no wait for the poll", async () => {
  const store = openSqliteMessageStore(":memory:");
  // The poll would not come within the test: only the writes' wake-ups read.
  const feed = createChangeFeed({
    store,
    log: createMemoryLog(),
    pollMs: 60_000,
  });
  const app = createMessagesApp({ store, log: createMemoryLog(), feed });
  try {
    const response = await app.request(EVENTS_PATH);
    const events = readEvents(response.body!);
    await events.opened();
    const writes: [string, string, unknown][] = [
      ["POST", MESSAGES_PATH, { author: "ada", message: "one" }],
      ["PATCH", `${MESSAGES_PATH}/1`, { message: "uno" }],
      ["DELETE", `${MESSAGES_PATH}/1`, undefined],
    ];
    for (const [method, path, body] of writes) {
      const written = await app.request(path, {
        method,
        headers: { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      assert.ok(written.ok, `${method} ${path}: ${written.status}`);
      await written.body?.cancel();
      const event = await events.next(1000);
      assert.equal(
        event.event,
        ["created", "updated", "deleted"][Number(event.id) - 1],
      );
    }
    await events.cancel();
  } finally {
    feed.close();
    await store.close();
  }
});
