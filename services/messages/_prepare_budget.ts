/**
 * Which statement texts to prepare, when preparing one keeps it for good.
 *
 * @module
 */

/**
 * Returns `shouldPrepare(text)`: `true` for the first `max` distinct texts it sees
 * (and for them ever after), `false` for any other. The PostgreSQL driver keeps
 * every prepared statement on every connection for the connection's life, and list
 * queries come in as many shapes as a client can spell (`id=1&id=1&…`, 1 to
 * 16,000 times): unbounded, that grows the server and this process without end.
 *
 * @example
 * ```ts
 * const shouldPrepare = createPrepareBudget(1);
 * shouldPrepare("SELECT 1"); // true
 * shouldPrepare("SELECT 2"); // false
 * shouldPrepare("SELECT 1"); // true
 * ```
 */
export function createPrepareBudget(max: number): (text: string) => boolean {
  const prepared = new Set<string>();
  return (text) => {
    if (prepared.has(text)) return true;
    if (prepared.size >= max) return false;
    prepared.add(text);
    return true;
  };
}
