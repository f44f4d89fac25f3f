import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { createHttpApp } from "../../lib/http.ts";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createMessagesApp, MAX_BODY_BYTES, MESSAGES_PATH } from "./app.ts";
import {
  MessageIdsExhaustedError,
  type MessageStore,
  MessageStoreBusyError,
} from "./message_store.ts";
import { openSqliteMessageStore } from "./sqlite_message_store.ts";

const BASE = `http://localhost${MESSAGES_PATH}`;

function setup(token?: string) {
  const store = openSqliteMessageStore(":memory:");
  const log = createMemoryLog();
  const app = createMessagesApp({ store, log, token });
  const call = (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    app.request(`${BASE}${path}`, {
      method,
      headers: { "content-type": "application/json", ...headers },
      body: body === undefined
        ? undefined
        : typeof body === "string"
        ? body
        : JSON.stringify(body),
    });
  return { store, log, app, call, [Symbol.asyncDispose]: () => store.close() };
}

async function expectError(response: Response, status: number) {
  assert.equal(response.status, status);
  assert.match(response.headers.get("content-type") ?? "", /application\/json/);
  const body = await response.json();
  assert.deepEqual(Object.keys(body), ["message"]);
  assert.equal(typeof body.message, "string");
  return body.message as string;
}

const ADA = { author: "Ada", message: "Hello" };

Deno.test("createMessagesApp() follows the contract's table", async (t) => {
  await using s = setup();
  await t.step("list of no records is 200 []", async () => {
    const response = await s.call("GET", "");
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type")!, /application\/json/);
    assert.deepEqual(await response.json(), []);
  });
  await t.step("create is 201 with the record and id 1 first", async () => {
    const response = await s.call("POST", "", ADA);
    assert.equal(response.status, 201);
    assert.match(response.headers.get("content-type")!, /application\/json/);
    assert.equal(response.headers.get("location"), `${MESSAGES_PATH}/1`);
    assert.deepEqual(await response.json(), { id: 1, ...ADA });
  });
  await t.step("the next create gets the highest id plus one", async () => {
    const response = await s.call("POST", "", { author: "Bo", message: "Hi" });
    assert.deepEqual(await response.json(), {
      id: 2,
      author: "Bo",
      message: "Hi",
    });
  });
  await t.step("list is 200 with every record by id", async () => {
    const response = await s.call("GET", "");
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), [
      { id: 1, ...ADA },
      { id: 2, author: "Bo", message: "Hi" },
    ]);
  });
  await t.step("read is 200 with one record", async () => {
    const response = await s.call("GET", "/2");
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      id: 2,
      author: "Bo",
      message: "Hi",
    });
  });
  await t.step("update is 200 with author and message only", async () => {
    const response = await s.call("POST", "/1", {
      author: "Ada L.",
      message: "Changed",
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      author: "Ada L.",
      message: "Changed",
    });
    const read = await s.call("GET", "/1");
    assert.deepEqual(await read.json(), {
      id: 1,
      author: "Ada L.",
      message: "Changed",
    });
  });
  await t.step("delete is 204 with an empty body", async () => {
    const response = await s.call("DELETE", "/1");
    assert.equal(response.status, 204);
    assert.equal(await response.text(), "");
    await expectError(await s.call("GET", "/1"), 404);
    const list = await s.call("GET", "");
    assert.deepEqual(await list.json(), [{
      id: 2,
      author: "Bo",
      message: "Hi",
    }]);
  });
  await t.step("HEAD on the list responds 200 without a body", async () => {
    const response = await s.call("HEAD", "");
    assert.equal(response.status, 200);
    assert.equal(await response.text(), "");
  });
});

Deno.test("createMessagesApp() gives ids as highest id plus one", async () => {
  await using s = setup();
  for (let i = 0; i < 3; i++) {
    await (await s.call("POST", "", ADA)).body?.cancel();
  }
  assert.equal((await s.call("DELETE", "/3")).status, 204);
  assert.equal((await (await s.call("POST", "", ADA)).json()).id, 3);
  assert.equal((await s.call("DELETE", "/1")).status, 204);
  assert.equal((await (await s.call("POST", "", ADA)).json()).id, 4);
  for (const id of [2, 3, 4]) {
    assert.equal((await s.call("DELETE", `/${id}`)).status, 204);
  }
  assert.equal((await (await s.call("POST", "", ADA)).json()).id, 1);
});

Deno.test("createMessagesApp() responds 404 for unknown and malformed ids", async (t) => {
  await using s = setup();
  await (await s.call("POST", "", ADA)).body?.cancel();
  const ids = ["2", "0", "-1", "abc", "1.5", "1.0", "01", "+1", "1e0", "%20"];
  ids.push("99999999999999999999", "9007199254740993");
  for (const id of ids) {
    await t.step(`id "${id}"`, async () => {
      await expectError(await s.call("GET", `/${id}`), 404);
      await expectError(await s.call("POST", `/${id}`, ADA), 404);
      await expectError(await s.call("DELETE", `/${id}`), 404);
    });
  }
  const list = await s.call("GET", "");
  assert.deepEqual(await list.json(), [{ id: 1, ...ADA }]);
});

Deno.test('createMessagesApp() responds 404 for the id "list", also after a list read', async () => {
  await using s = setup();
  await (await s.call("POST", "", ADA)).body?.cancel();
  await expectError(await s.call("GET", "/list"), 404);
  assert.deepEqual(await (await s.call("GET", "")).json(), [{ id: 1, ...ADA }]);
  // The list's response is cached now: no segment may reach it.
  await expectError(await s.call("GET", "/list"), 404);
});

Deno.test("createMessagesApp() responds 404 for trailing-slash variants and other paths", async () => {
  await using s = setup();
  await (await s.call("POST", "", ADA)).body?.cancel();
  const paths = [
    `${MESSAGES_PATH}/`,
    `${MESSAGES_PATH}/1/`,
    `${MESSAGES_PATH}//1`,
    `${MESSAGES_PATH}/1/x`,
    "/api/message",
    "/api/message/",
    "/api/message/resources",
    "/",
  ];
  for (const path of paths) {
    for (const method of ["GET", "POST", "DELETE"]) {
      const response = await s.app.request(`http://localhost${path}`, {
        method,
        body: method === "POST" ? JSON.stringify(ADA) : undefined,
      });
      await expectError(response, 404);
    }
  }
  const list = await s.call("GET", "");
  assert.deepEqual(await list.json(), [{ id: 1, ...ADA }]);
});

Deno.test("createMessagesApp() responds 405 with Allow for other methods", async () => {
  await using s = setup();
  await (await s.call("POST", "", ADA)).body?.cancel();
  for (const method of ["PUT", "PATCH"]) {
    const list = await s.call(method, "", ADA);
    await expectError(list, 405);
    assert.equal(list.headers.get("allow"), "GET, HEAD, POST");
  }
  for (const method of ["OPTIONS", "PROPFIND"]) {
    const item = await s.call(method, "/1", ADA);
    await expectError(item, 405);
    assert.equal(
      item.headers.get("allow"),
      "GET, HEAD, POST, PUT, PATCH, DELETE",
    );
  }
  await expectError(await s.call("DELETE", ""), 405);
  const read = await s.call("GET", "/1");
  assert.deepEqual(await read.json(), { id: 1, ...ADA });
});

Deno.test("createMessagesApp() responds 400 for bad bodies, on create and update", async (t) => {
  await using s = setup();
  await (await s.call("POST", "", ADA)).body?.cancel();
  const bodies: [string, string][] = [
    ["no body", ""],
    ["not JSON", "author=Ada&message=Hi"],
    ["truncated JSON", '{"author": "Ada", "message": "Hi"'],
    ["an array", JSON.stringify([ADA])],
    ["null", "null"],
    ["a number", "42"],
    ["a string", '"Ada"'],
    ["author missing", JSON.stringify({ message: "Hi" })],
    ["message missing", JSON.stringify({ author: "Ada" })],
    ["both missing", "{}"],
    ["author empty", JSON.stringify({ author: "", message: "Hi" })],
    ["message empty", JSON.stringify({ author: "Ada", message: "" })],
    ["message blank", JSON.stringify({ author: "Ada", message: "  \n" })],
    ["author null", JSON.stringify({ author: null, message: "Hi" })],
    ["author a number", JSON.stringify({ author: 7, message: "Hi" })],
    ["message a boolean", JSON.stringify({ author: "Ada", message: true })],
    ["message an object", JSON.stringify({ author: "Ada", message: {} })],
    ["message an array", JSON.stringify({ author: "Ada", message: ["Hi"] })],
    ["message with NUL", '{"author": "Ada", "message": "a\\u0000b"}'],
    ["lone surrogate", '{"author": "\\ud800", "message": "Hi"}'],
  ];
  for (const [name, body] of bodies) {
    await t.step(name, async () => {
      await expectError(await s.call("POST", "", body), 400);
      await expectError(await s.call("POST", "/1", body), 400);
    });
  }
  await t.step("the message names the field", async () => {
    const missing = await expectError(
      await s.call("POST", "", { author: "Ada" }),
      400,
    );
    assert.equal(missing, 'Missing field "message"');
    const typed = await expectError(
      await s.call("POST", "", { author: 1, message: "x" }),
      400,
    );
    assert.equal(typed, 'Invalid field "author": expected a string');
  });
  const list = await s.call("GET", "");
  assert.deepEqual(await list.json(), [{ id: 1, ...ADA }]);
});

Deno.test("createMessagesApp() ignores unknown fields", async () => {
  await using s = setup();
  const created = await s.call("POST", "", { id: 99, extra: true, ...ADA });
  assert.equal(created.status, 201);
  assert.deepEqual(await created.json(), { id: 1, ...ADA });
  const updated = await s.call("POST", "/1", { id: 5, x: 1, ...ADA });
  assert.deepEqual(await updated.json(), ADA);
  assert.deepEqual(await (await s.call("GET", "/1")).json(), { id: 1, ...ADA });
});

Deno.test("createMessagesApp() keeps text as sent", async () => {
  await using s = setup();
  const fields = {
    author: "  Zoë 🚀 ",
    message: 'Line 1\nLine 2 "quoted" \\ <b>&</b> 日本語',
  };
  const created = await (await s.call("POST", "", fields)).json();
  assert.deepEqual(created, { id: 1, ...fields });
  assert.deepEqual(await (await s.call("GET", "/1")).json(), created);
});

Deno.test("createMessagesApp() responds 413 past 64 KiB and accepts up to it", async () => {
  await using s = setup();
  const exact = JSON.stringify({ author: "Ada", message: "" });
  const fill = "x".repeat(MAX_BODY_BYTES - exact.length);
  const atLimit = JSON.stringify({ author: "Ada", message: fill });
  assert.equal(atLimit.length, MAX_BODY_BYTES);
  assert.equal((await s.call("POST", "", atLimit)).status, 201);
  const over = JSON.stringify({ author: "Ada", message: fill + "x" });
  await expectError(await s.call("POST", "", over), 413);
  await expectError(await s.call("POST", "/1", over), 413);
  const streamed = new Blob([over]).stream();
  const response = await s.app.request(`${BASE}`, {
    method: "POST",
    body: streamed,
  });
  await expectError(response, 413);
  const list = await (await s.call("GET", "")).json();
  assert.equal(list.length, 1);
});

Deno.test("createMessagesApp() with a token guards writes only", async (t) => {
  const token = "s3cret-token";
  await using s = setup(token);
  const auth = { authorization: `Bearer ${token}` };
  await t.step("writes without the token are 401", async () => {
    const variants: Record<string, string>[] = [
      {},
      { authorization: "Bearer wrong" },
      { authorization: `Bearer ${token}x` },
      { authorization: token },
      { authorization: `Basic ${btoa(`u:${token}`)}` },
      { authorization: "Bearer " },
    ];
    for (const headers of variants) {
      const message = await expectError(
        await s.call("POST", "", ADA, headers),
        401,
      );
      assert.ok(!message.includes(token));
    }
    const response = await s.call("POST", "", ADA);
    assert.match(response.headers.get("www-authenticate")!, /^Bearer/);
    await response.body?.cancel();
  });
  await t.step("create, update and delete work with it", async () => {
    assert.equal((await s.call("POST", "", ADA, auth)).status, 201);
    await expectError(await s.call("POST", "/1", ADA), 401);
    await expectError(await s.call("DELETE", "/1"), 401);
    const lower = { authorization: `bearer ${token}` };
    assert.equal((await s.call("POST", "/1", ADA, lower)).status, 200);
    assert.equal((await s.call("DELETE", "/1", undefined, auth)).status, 204);
  });
  await t.step("the 401 comes before body checks", async () => {
    await expectError(await s.call("POST", "", "not json"), 401);
    await expectError(await s.call("POST", "/abc", ADA), 401);
  });
  await t.step("reads stay open", async () => {
    assert.equal((await s.call("POST", "", ADA, auth)).status, 201);
    const list = await s.call("GET", "");
    assert.equal(list.status, 200);
    assert.equal((await list.json()).length, 1);
    const read = await s.call("GET", "/1");
    assert.equal(read.status, 200);
    await read.body?.cancel();
  });
});

Deno.test("createMessagesApp() responds /healthz", async () => {
  await using s = setup();
  const response = await s.app.request("http://localhost/healthz");
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { status: "ok" });
});

Deno.test("createMessagesApp() responds other methods on /healthz 405 with Allow, as every role does", async () => {
  await using s = setup();
  const otherRoles = createHttpApp({ log: createMemoryLog() });
  for (const method of ["PUT", "POST", "DELETE", "PATCH"]) {
    const init = { method, body: method === "DELETE" ? undefined : "{}" };
    const ours = await s.app.request("http://localhost/healthz", init);
    const theirs = await otherRoles.request("http://localhost/healthz", init);
    assert.equal(ours.status, 405, method);
    assert.equal(ours.headers.get("allow"), "GET, HEAD");
    assert.equal(ours.headers.get("allow"), theirs.headers.get("allow"));
    assert.deepEqual(
      { message: await expectError(ours, 405) },
      await theirs.json(),
    );
  }
  const head = await s.app.request("http://localhost/healthz", {
    method: "HEAD",
  });
  assert.equal(head.status, 200);
});

Deno.test("createMessagesApp() responds 503 with Retry-After while another writer holds the database, then takes the retry", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "messages-app-" });
  const store = openSqliteMessageStore(`${dir}/m.db`);
  const log = createMemoryLog();
  const app = createMessagesApp({ store, log });
  const other = new DatabaseSync(`${dir}/m.db`);
  const call = (method: string, path: string, body?: unknown) =>
    app.request(`${BASE}${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  try {
    assert.equal((await call("POST", "", ADA)).status, 201);
    other.exec("BEGIN IMMEDIATE");
    other.exec("INSERT INTO messages VALUES (2, 'Bo', 'Held')");
    const writes: [string, string, unknown][] = [
      ["POST", "", { author: "Cy", message: "Blocked" }],
      ["POST", "/1", { author: "Cy", message: "Blocked" }],
      ["DELETE", "/1", undefined],
    ];
    for (const [method, path, body] of writes) {
      const response = await call(method, path, body);
      assert.equal(response.headers.get("retry-after"), "1");
      const message = await expectError(response, 503);
      assert.match(message, /busy/i);
      assert.match(message, /another writer/);
      assert.match(message, /try again/);
    }
    assert.deepEqual(log.at("ERROR"), []);
    assert.equal(log.at("WARNING").length, writes.length);
    assert.match(log.at("WARNING")[0]!, /busy/i);
    // Reads go on (WAL) and show only what was committed.
    assert.deepEqual(await (await call("GET", "")).json(), [{ id: 1, ...ADA }]);
    other.exec("COMMIT");
    const retried = await call("POST", "", { author: "Cy", message: "Retry" });
    assert.equal(retried.status, 201);
    assert.deepEqual(await (await call("GET", "")).json(), [
      { id: 1, ...ADA },
      { id: 2, author: "Bo", message: "Held" },
      { id: 3, author: "Cy", message: "Retry" },
    ]);
  } finally {
    other.close();
    await store.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("createMessagesApp() logs a store failure and responds 500", async () => {
  const log = createMemoryLog();
  const failing = new Proxy({} as MessageStore, {
    get: (_, name) =>
      name === "revision"
        ? () => 0
        : () => Promise.reject(new Error("disk I/O error")),
  });
  const app = createMessagesApp({ store: failing, log });
  const response = await app.request(`${BASE}/1`);
  await expectError(response, 500);
  assert.match(log.at("ERROR")[0] ?? "", /disk I\/O error/);
});

/** Writes through another connection show within 1 ms (the store's default). */
const outsideWritesShown = () =>
  new Promise((resolve) => setTimeout(resolve, 5));

Deno.test("createMessagesApp() reads reflect writes made through another connection", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "messages-app-" });
  const ours = openSqliteMessageStore(`${dir}/m.db`);
  const other = openSqliteMessageStore(`${dir}/m.db`);
  const app = createMessagesApp({ store: ours, log: createMemoryLog() });
  const read = async (path: string) =>
    await (await app.request(`${BASE}${path}`)).json();
  try {
    await ours.create(ADA);
    assert.deepEqual(await read(""), [{ id: 1, ...ADA }]);
    assert.deepEqual(await read("/1"), { id: 1, ...ADA });
    await other.update(1, { author: "Bo", message: "Edited elsewhere" });
    await other.create({ author: "Cy", message: "New" });
    await outsideWritesShown();
    assert.deepEqual(await read("/1"), {
      id: 1,
      author: "Bo",
      message: "Edited elsewhere",
    });
    assert.equal((await read("")).length, 2);
    await other.delete(1);
    await outsideWritesShown();
    const gone = await app.request(`${BASE}/1`);
    assert.equal(gone.status, 404);
    await gone.body?.cancel();
  } finally {
    await ours.close();
    await other.close();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("createMessagesApp() responds 400 to a body that is not UTF-8, storing nothing", async () => {
  await using s = setup();
  const bytes = new TextEncoder().encode('{"author":"Ada","message":"xx"}');
  bytes.set([0xc3, 0x28], bytes.length - 4); // an invalid two-byte sequence
  const response = await s.app.request(`${BASE}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: bytes,
  });
  assert.match(await expectError(response, 400), /not valid UTF-8/);
  assert.deepEqual(await (await s.call("GET", "")).json(), []);
  assert.deepEqual(s.log.at("ERROR"), []);
});

Deno.test("createMessagesApp() responds 400, not a logged 500, to an upload cut short", async () => {
  await using s = setup();
  for (const declared of [true, false]) {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"author":'));
        controller.error(new Error("connection reset"));
      },
    });
    const response = await s.app.request(`${BASE}`, {
      method: "POST",
      headers: declared ? { "content-length": "40" } : {},
      body,
    });
    assert.match(await expectError(response, 400), /cut short/);
  }
  assert.deepEqual(s.log.at("ERROR"), []);
});

Deno.test("createMessagesApp() keeps an unknown id short in its 404 message", async () => {
  await using s = setup();
  const message = await expectError(
    await s.call("GET", `/${"1".repeat(5000)}`),
    404,
  );
  assert.ok(message.length < 120, message);
  assert.match(message, /^No message record with id "1{80}\.\.\."$/);
});

Deno.test("createMessagesApp() responds to a read that finds the database busy once, with one WARNING", async () => {
  const store = openSqliteMessageStore(":memory:");
  await store.create({ author: "Ada", message: "Hello" });
  let gets = 0;
  const busy: MessageStore = {
    ...store,
    get() {
      gets++;
      return Promise.reject(new MessageStoreBusyError());
    },
  };
  const log = createMemoryLog();
  const app = createMessagesApp({ store: busy, log });
  try {
    const response = await app.request(`http://localhost${MESSAGES_PATH}/1`);
    assert.equal(response.status, 503);
    assert.equal(response.headers.get("retry-after"), "1");
    await response.body?.cancel();
    assert.equal(gets, 1);
    assert.deepEqual(log.at("WARNING").length, 1);
    assert.match(
      log.at("WARNING")[0]!,
      new RegExp(`^GET ${MESSAGES_PATH}/1 responded 503, the client may retry`),
    );
  } finally {
    await store.close();
  }
});

Deno.test("createMessagesApp() responds 507 to a create when no id is left, storing nothing", async () => {
  await using app = setup();
  const full = {
    ...app.store,
    create: () => Promise.reject(new MessageIdsExhaustedError()),
  };
  const log = createMemoryLog();
  const refusing = createMessagesApp({ store: full, log });
  const response = await refusing.request(BASE, {
    method: "POST",
    body: JSON.stringify(ADA),
  });
  assert.match(await expectError(response, 507), /No message id is left/);
  assert.match(
    log.at("ERROR")[0] ?? "",
    new RegExp(`^POST ${MESSAGES_PATH} responded 507: No message id is left`),
  );
  assert.deepEqual(await app.store.list(), []);
});

Deno.test("createMessagesApp() routes every request through Hono, item reads included", async () => {
  await using s = setup();
  await (await s.call("POST", "", { author: "Zoë", message: "Grüße" })).body
    ?.cancel();
  const matched: string[] = [];
  const match = s.app.router.match.bind(s.app.router);
  s.app.router.match = (method, path) => {
    matched.push(`${method} ${path}`);
    return match(method, path);
  };
  const get = await s.call("GET", "/1");
  const body = await get.text();
  assert.deepEqual(matched, [`GET ${MESSAGES_PATH}/1`]);
  // HEAD runs the GET route and carries the length the GET response has.
  for (const path of ["", "/1"]) {
    const full = await (await s.call("GET", path)).arrayBuffer();
    const head = await s.call("HEAD", path);
    assert.equal(head.status, 200);
    assert.equal(
      head.headers.get("content-length"),
      String(full.byteLength),
      path,
    );
    assert.equal(await head.text(), "");
  }
  assert.equal(
    body,
    JSON.stringify({ id: 1, author: "Zoë", message: "Grüße" }),
  );
  const missing = await s.call("HEAD", "/9");
  assert.equal(missing.status, 404);
  assert.notEqual(missing.headers.get("content-length"), "0");
  await missing.body?.cancel();
});

Deno.test("createMessagesApp() updates with PUT (both fields) and PATCH (either)", async () => {
  await using s = setup();
  await (await s.call("POST", "", ADA)).body?.cancel();
  const put = await s.call("PUT", "/1", { author: "Bob", message: "Put" });
  assert.equal(put.status, 200);
  assert.deepEqual(await put.json(), { author: "Bob", message: "Put" });
  await expectError(await s.call("PUT", "/1", { author: "Bob" }), 400);
  const patch = await s.call("PATCH", "/1", { message: "Patched" });
  assert.deepEqual(await patch.json(), { author: "Bob", message: "Patched" });
  const patchAuthor = await s.call("PATCH", "/1", { author: "Cy", id: 9 });
  assert.deepEqual(await patchAuthor.json(), {
    author: "Cy",
    message: "Patched",
  });
  assert.match(
    await expectError(await s.call("PATCH", "/1", {}), 400),
    /"author", "message" or both/,
  );
  await expectError(await s.call("PATCH", "/1", { author: " " }), 400);
  await expectError(await s.call("PATCH", "/2", { author: "X" }), 404);
  await expectError(await s.call("PUT", "/2", ADA), 404);
  assert.deepEqual(await (await s.call("GET", "/1")).json(), {
    id: 1,
    author: "Cy",
    message: "Patched",
  });
});

Deno.test("createMessagesApp() tags reads and responds 304 to a matching If-None-Match", async () => {
  await using s = setup();
  await (await s.call("POST", "", ADA)).body?.cancel();
  for (const path of ["/1", "", "?_page=1&_limit=1"]) {
    const first = await s.call("GET", path);
    const etag = first.headers.get("etag")!;
    await first.body?.cancel();
    assert.match(etag, /^"[0-9a-z-]+"$/, path);
    const again = await s.call("GET", path, undefined, {
      "if-none-match": etag,
    });
    assert.equal(again.status, 304, path);
    assert.equal(again.headers.get("etag"), etag);
    assert.equal(await again.text(), "");
    const weak = await s.call("GET", path, undefined, {
      "if-none-match": `"other", W/${etag}`,
    });
    assert.equal(weak.status, 304);
    await weak.body?.cancel();
    const other = await s.call("GET", path, undefined, {
      "if-none-match": '"other"',
    });
    assert.equal(other.status, 200);
    await other.body?.cancel();
  }
  const tags = async () =>
    await Promise.all(["/1", "", "?_page=1&_limit=1"].map(async (path) => {
      const response = await s.call("GET", path);
      await response.body?.cancel();
      return response.headers.get("etag");
    }));
  const before = await tags();
  await (await s.call("PATCH", "/1", { message: "Changed" })).body?.cancel();
  const after = await tags();
  for (const [i, tag] of after.entries()) assert.notEqual(tag, before[i]);
  await (await s.call("POST", "", ADA)).body?.cancel();
  const created = await tags();
  assert.equal(created[0], after[0], "item 1 did not change");
  assert.notEqual(created[1], after[1]);
  assert.notEqual(created[2], after[2], "the total count moved");
});

Deno.test("createMessagesApp() responds list queries with X-Total-Count and Link", async () => {
  await using s = setup();
  for (let i = 1; i <= 25; i++) {
    await (await s.call("POST", "", { author: `A${i % 3}`, message: `m${i}` }))
      .body?.cancel();
  }
  const plain = await s.call("GET", "");
  assert.equal(plain.headers.get("x-total-count"), null);
  assert.equal(plain.headers.get("link"), null);
  assert.equal((await plain.json()).length, 25);
  const page = await s.call("GET", "?_page=2&_limit=10&_sort=id&_order=DESC");
  assert.equal(page.headers.get("x-total-count"), "25");
  assert.equal(page.headers.get("access-control-expose-headers"), null);
  assert.match(page.headers.get("link")!, /_page=3&[^>]*>; rel="next"/);
  assert.deepEqual(
    (await page.json()).map((m: { id: number }) => m.id),
    [15, 14, 13, 12, 11, 10, 9, 8, 7, 6],
  );
  const bad = await s.call("GET", "?_page=0");
  assert.match(await expectError(bad, 400), /^Invalid _page "0"/);
  const head = await s.call("HEAD", "?author=A1");
  assert.equal(head.headers.get("x-total-count"), "9");
  assert.ok(Number(head.headers.get("content-length")) > 0);
});

Deno.test("createMessagesApp() serves a store whose promises settle later", async () => {
  const inner = openSqliteMessageStore(":memory:");
  const later = <T>(value: () => Promise<T>) =>
    new Promise<T>((resolve, reject) =>
      setTimeout(() => value().then(resolve, reject), 1)
    );
  const store: MessageStore = {
    list: () => later(() => inner.list()),
    query: (query) => later(() => inner.query(query)),
    get: (id) => later(() => inner.get(id)),
    create: (fields) => later(() => inner.create(fields)),
    update: (id, fields) => later(() => inner.update(id, fields)),
    delete: (id) => later(() => inner.delete(id)),
    revision: () => inner.revision(),
    changesAfter: (seq, limit) => later(() => inner.changesAfter(seq, limit)),
    changeRange: () => later(() => inner.changeRange()),
    forgetChanges: (seq) => later(() => inner.forgetChanges(seq)),
    close: () => inner.close(),
  };
  const app = createMessagesApp({ store, log: createMemoryLog() });
  const call = (method: string, path: string, body?: unknown) =>
    app.request(`${BASE}${path}`, {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  try {
    const created = await call("POST", "", ADA);
    assert.equal(created.status, 201);
    assert.deepEqual(await created.json(), { id: 1, ...ADA });
    const read = await call("GET", "/1");
    assert.deepEqual(await read.json(), { id: 1, ...ADA });
    const again = await app.request(`${BASE}/1`, {
      headers: { "if-none-match": read.headers.get("etag")! },
    });
    assert.equal(again.status, 304);
    await expectError(await call("GET", "/2"), 404);
    const page = await call("GET", "?_page=1&_limit=1&q=hel");
    assert.equal(page.headers.get("x-total-count"), "1");
    assert.deepEqual(await page.json(), [{ id: 1, ...ADA }]);
    await expectError(await call("GET", "?_sort=nope"), 400);
    const head = await call("HEAD", "");
    assert.equal(
      head.headers.get("content-length"),
      String(JSON.stringify([{ id: 1, ...ADA }]).length),
    );
    const patched = await call("PATCH", "/1", { author: "Bob" });
    assert.deepEqual(await patched.json(), { author: "Bob", message: "Hello" });
    assert.equal((await call("DELETE", "/1")).status, 204);
    await expectError(await call("DELETE", "/1"), 404);
    assert.deepEqual(await (await call("GET", "")).json(), []);
  } finally {
    await inner.close();
  }
});
