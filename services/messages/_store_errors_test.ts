import assert from "node:assert/strict";
import { Hono } from "hono";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import {
  MessageIdsExhaustedError,
  MessageStoreBusyError,
  MessageStoreUnavailableError,
} from "./message_store.ts";
import { storeErrors } from "./_store_errors.ts";

function appThrowing(error: Error) {
  const log = createMemoryLog();
  const app = new Hono().onError(storeErrors(log));
  app.get("/x", () => Promise.reject(error));
  return { app, log };
}

Deno.test("storeErrors() responds 503 with Retry-After 1 to a busy store, logged at WARNING", async () => {
  const { app, log } = appThrowing(
    new MessageStoreBusyError({ cause: new Error("database is locked") }),
  );
  const response = await app.request("/x");
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("retry-after"), "1");
  assert.match(response.headers.get("content-type") ?? "", /application\/json/);
  assert.deepEqual(await response.json(), {
    message:
      "Database busy: it is locked by another writer, try again in a second",
  });
  assert.deepEqual(log.entries.map((e) => e.level), ["WARNING"]);
  assert.match(
    log.at("WARNING")[0]!,
    /^GET \/x responded 503, the client may retry: .*database is locked/,
  );
});

Deno.test("storeErrors() responds 503 with Retry-After 2 to an unreachable database", async () => {
  const { app, log } = appThrowing(
    new MessageStoreUnavailableError(
      "Database unavailable: PostgreSQL cannot be reached",
      { cause: new Error("connect ECONNREFUSED 127.0.0.1:5432") },
    ),
  );
  const response = await app.request("/x");
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("retry-after"), "2");
  assert.deepEqual(await response.json(), {
    message:
      "Database unavailable: PostgreSQL cannot be reached, try again in a few seconds",
  });
  assert.match(log.at("WARNING")[0]!, /^GET \/x responded 503.*ECONNREFUSED/);
  const head = await app.request("/x", { method: "HEAD" });
  assert.equal(head.status, 503);
  assert.notEqual(head.headers.get("content-length"), null);
  await head.body?.cancel();
});

Deno.test("storeErrors() responds 507 when no id is left, logged at ERROR", async () => {
  const { app, log } = appThrowing(new MessageIdsExhaustedError());
  const response = await app.request("/x");
  assert.equal(response.status, 507);
  assert.match((await response.json()).message, /^No message id is left/);
  assert.match(log.at("ERROR")[0]!, /^GET \/x responded 507/);
});

Deno.test("storeErrors() leaves other errors to the shared handler: a logged 500", async () => {
  const { app, log } = appThrowing(new Error("disk I/O error"));
  const response = await app.request("/x");
  assert.equal(response.status, 500);
  assert.deepEqual(await response.json(), {
    message: "Internal server error",
  });
  assert.match(log.at("ERROR")[0]!, /disk I\/O error/);
  assert.deepEqual(log.at("WARNING"), []);
});
