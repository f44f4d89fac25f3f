/**
 * The messages store with its operations and failures counted, for Prometheus, and
 * the role's readiness: whether the store responds.
 *
 * @module
 */
import type { MetricsRegistry } from "../../lib/metrics/registry.ts";
import type { MessageStore } from "./message_store.ts";

/** Which database keeps the records. */
export type StoreKind = "sqlite" | "postgres";

type Operation = "list" | "query" | "get" | "create" | "update" | "delete";

/**
 * Registers `homewire_messages_store_operations_total{store, operation}` and
 * `homewire_messages_store_errors_total{store, operation}`.
 */
export function storeSeries(registry: MetricsRegistry) {
  return {
    operations: registry.counter<"store" | "operation">({
      name: "homewire_messages_store_operations_total",
      help: "Calls to the message store, by store kind and operation",
      labels: ["store", "operation"],
    }),
    errors: registry.counter<"store" | "operation">({
      name: "homewire_messages_store_errors_total",
      help:
        "Calls to the message store that failed (unavailable, busy, no id left, other), by store kind and operation",
      labels: ["store", "operation"],
    }),
  };
}

/**
 * Returns `store` with each call counted in the series of {@linkcode storeSeries}
 * (a call that throws counts in both).
 *
 * @example
 * ```ts
 * import { createRegistry } from "../../lib/metrics/registry.ts";
 * import { openSqliteMessageStore } from "./sqlite_message_store.ts";
 *
 * const store = measuredStore(
 *   openSqliteMessageStore(":memory:"),
 *   createRegistry().with({ role: "messages" }),
 *   "sqlite",
 * );
 * await store.list();
 * ```
 */
export function measuredStore(
  store: MessageStore,
  registry: MetricsRegistry,
  kind: StoreKind,
): MessageStore {
  const { operations, errors } = storeSeries(registry);
  const measured = <A extends unknown[], R>(
    operation: Operation,
    call: (...args: A) => R | Promise<R>,
  ) => {
    const done = operations.child({ store: kind, operation });
    const failed = errors.child({ store: kind, operation });
    return async (...args: A): Promise<R> => {
      done.inc();
      try {
        return await call(...args);
      } catch (error) {
        failed.inc();
        throw error;
      }
    };
  };
  return {
    list: measured("list", () => store.list()),
    query: measured("query", (query) => store.query(query)),
    get: measured("get", (id) => store.get(id)),
    create: measured("create", (fields) => store.create(fields)),
    update: measured("update", (id, fields) => store.update(id, fields)),
    delete: measured("delete", (id) => store.delete(id)),
    revision: () => store.revision(),
    // The change feed's reads: its own poll, not a client's call.
    changesAfter: (seq, limit) => store.changesAfter(seq, limit),
    changeRange: () => store.changeRange(),
    forgetChanges: (seq) => store.forgetChanges(seq),
    close: () => store.close(),
  };
}

/**
 * The readiness of the messages role: `undefined` when the store returns a read,
 * else what it said.
 */
export async function storeReadiness(
  store: Pick<MessageStore, "get">,
): Promise<string | undefined> {
  try {
    await store.get(0);
    return undefined;
  } catch (error) {
    return `The message store does not respond: ${
      error instanceof Error ? error.message : String(error)
    }`;
  }
}
