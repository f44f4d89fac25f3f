import assert from "node:assert/strict";
import { HTTPException } from "hono/http-exception";
import { createMemoryLog } from "../../lib/testing.ts";
import {
  type MessageStore,
  MessageStoreBusyError,
  MessageStoreUnavailableError,
} from "./message_store.ts";
import { unavailableWhenBusy } from "./_unavailable_when_busy.ts";

function throwing(error: Error): MessageStore {
  return new Proxy({} as MessageStore, {
    get: () => () => {
      throw error;
    },
  });
}

Deno.test("unavailableWhenBusy() turns a busy store into a logged 503 with Retry-After", async () => {
  const log = createMemoryLog();
  const locked = new Error("database is locked");
  const store = unavailableWhenBusy(
    throwing(new MessageStoreBusyError({ cause: locked })),
    log,
  );
  const thrown = (() => {
    try {
      store.create({ author: "a", message: "b" });
    } catch (error) {
      return error;
    }
  })();
  assert.ok(thrown instanceof HTTPException);
  const response = thrown.getResponse();
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
    /^create answered 503.*database is locked/,
  );
});

Deno.test("unavailableWhenBusy() passes other errors and results unchanged", () => {
  const log = createMemoryLog();
  const failure = new Error("disk I/O error");
  assert.throws(
    () => unavailableWhenBusy(throwing(failure), log).list(),
    (error) => error === failure,
  );
  const calls: unknown[][] = [];
  const store = unavailableWhenBusy(
    new Proxy({} as MessageStore, {
      get: (_, name) => (...args: unknown[]) => {
        calls.push([name, ...args]);
        return name === "delete";
      },
    }),
    log,
  );
  assert.equal(store.delete(7), true);
  assert.equal(store.get(3), false);
  assert.deepEqual(calls, [["delete", 7], ["get", 3]]);
  assert.deepEqual(log.entries, []);
});

Deno.test("unavailableWhenBusy() turns an unreachable database's rejection into a 503", async () => {
  const log = createMemoryLog();
  const store = unavailableWhenBusy(
    new Proxy({} as MessageStore, {
      get: () => () =>
        Promise.reject(
          new MessageStoreUnavailableError(
            "Database unavailable: PostgreSQL cannot be reached",
            { cause: new Error("connect ECONNREFUSED 127.0.0.1:5432") },
          ),
        ),
    }),
    log,
  );
  const thrown = await Promise.resolve(store.get(1)).catch((error) => error);
  assert.ok(thrown instanceof HTTPException);
  const response = thrown.getResponse();
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("retry-after"), "2");
  assert.deepEqual(await response.json(), {
    message:
      "Database unavailable: PostgreSQL cannot be reached, try again in a few seconds",
  });
  assert.match(log.at("WARNING")[0]!, /^get answered 503.*ECONNREFUSED/);
});
