import assert from "node:assert/strict";
import { createRegistry } from "../../lib/metrics/registry.ts";
import { measuredStore, storeReadiness } from "./measured_store.ts";
import type { MessageStore } from "./message_store.ts";
import { openSqliteMessageStore } from "./sqlite_message_store.ts";

Deno.test("measuredStore() counts operations and errors by store kind", async () => {
  const registry = createRegistry();
  const inner = openSqliteMessageStore(":memory:");
  const store = measuredStore(
    inner,
    registry.with({ role: "messages" }),
    "sqlite",
  );
  try {
    const created = await store.create({ author: "a", message: "m" });
    assert.deepEqual(await store.get(created.id), created);
    await store.list();
    const failing: MessageStore = {
      ...inner,
      get: () => Promise.reject(new Error("database unavailable")),
    };
    const broken = measuredStore(
      failing,
      registry.with({ role: "messages" }),
      "postgres",
    );
    await assert.rejects(async () => await broken.get(1));
    const text = await registry.render();
    for (
      const line of [
        'homewire_messages_store_operations_total{role="messages",store="sqlite",operation="create"} 1',
        'homewire_messages_store_operations_total{role="messages",store="sqlite",operation="get"} 1',
        'homewire_messages_store_operations_total{role="messages",store="sqlite",operation="list"} 1',
        'homewire_messages_store_operations_total{role="messages",store="postgres",operation="get"} 1',
        'homewire_messages_store_errors_total{role="messages",store="postgres",operation="get"} 1',
        'homewire_messages_store_errors_total{role="messages",store="sqlite",operation="get"} 0',
      ]
    ) {
      assert.ok(text.includes(`${line}\n`), `${line} in:\n${text}`);
    }
    assert.equal(await storeReadiness(store), undefined);
    assert.equal(
      await storeReadiness(broken),
      "The message store does not respond: database unavailable",
    );
  } finally {
    await inner.close();
  }
});
