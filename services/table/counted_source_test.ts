import assert from "node:assert/strict";
import { createRegistry } from "../../lib/metrics/registry.ts";
import { countedSource } from "./counted_source.ts";
import { TableFetchError } from "./table_fetch_error.ts";

Deno.test("countedSource() counts fetches by outcome", async () => {
  const registry = createRegistry();
  const failures = [
    undefined,
    new TableFetchError("HTTP 500", { status: 500 }),
    new TableFetchError("not JSON", { status: 200, cause: new SyntaxError() }),
    new TableFetchError("slow", {
      cause: new DOMException("t", "TimeoutError"),
    }),
    new TableFetchError("refused", { cause: new TypeError("refused") }),
    new Error("Expected a list of objects"),
  ];
  let i = 0;
  const load = countedSource(() => {
    const failure = failures[i++];
    return failure ? Promise.reject(failure) : Promise.resolve("table");
  }, registry.with({ role: "table" }));
  assert.equal(await load(), "table");
  for (let n = 1; n < failures.length; n++) {
    await assert.rejects(load());
  }
  const text = await registry.render();
  for (
    const [outcome, count] of [
      ["ok", 1],
      ["error_status", 1],
      ["invalid_body", 2],
      ["timeout", 1],
      ["unreachable", 1],
    ] as const
  ) {
    assert.match(
      text,
      new RegExp(
        `^homewire_table_source_fetches_total\\{role="table",outcome="${outcome}"\\} ${count}$`,
        "m",
      ),
    );
  }
});
