/**
 * `GET /openapi.json` of the `messages` role through `main.ts`: a valid OpenAPI 3.1
 * document (checked by a real validator) that matches the live routes both ways.
 */
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { createMessagesApp } from "../services/messages/app.ts";
import { openSqliteMessageStore } from "../services/messages/sqlite_message_store.ts";
import { createMemoryLog } from "../lib/_test_memory_log.ts";
import { startMain } from "./_test_helpers.ts";

const TOKEN = "openapi-test-token";
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

interface Operation {
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<string, unknown>;
}
type Document = {
  openapi: string;
  paths: Record<string, Partial<Record<string, Operation>>>;
};

Deno.test("messages serves a valid OpenAPI 3.1 document of its live routes", async (t) => {
  const main = startMain(["messages"], {
    env: {
      MESSAGES_HOST: "127.0.0.1",
      MESSAGES_PORT: "0",
      MESSAGES_DB: ":memory:",
      MESSAGES_TOKEN: TOKEN,
    },
  });
  const line = await main.waitFor(/messages listening on http:\/\/\S+/);
  const origin = /http:\/\/\S+/.exec(line)![0];
  try {
    const response = await fetch(`${origin}/openapi.json`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type")!, /application\/json/);
    const text = await response.text();
    const document = JSON.parse(text) as Document;
    const head = await fetch(`${origin}/openapi.json`, { method: "HEAD" });
    assert.equal(
      head.headers.get("content-length"),
      String(new TextEncoder().encode(text).length),
    );

    await t.step(
      "the validator finds it a valid OpenAPI 3.1 document",
      async () => {
        const validator = new Validator();
        const result = await validator.validate(structuredClone(document));
        assert.ok(result.valid, JSON.stringify(result.errors, null, 2));
        assert.equal(validator.version, "3.1");
        assert.match(document.openapi, /^3\.1\./);
      },
    );

    await t.step(
      "every documented operation responds with a documented status",
      async () => {
        const auth = { authorization: `Bearer ${TOKEN}` };
        const create = await fetch(`${origin}/api/message/resource`, {
          method: "POST",
          headers: auth,
          body: JSON.stringify({ author: "Ada", message: "Hello" }),
        });
        assert.equal(create.status, 201);
        await create.body?.cancel();
        const bodies: Record<string, unknown> = {
          "#/components/schemas/MessageFields": { author: "A", message: "M" },
          "#/components/schemas/PartialMessageFields": { message: "P" },
        };
        // Deletes last, so the record the others name is still there.
        const operations = Object.entries(document.paths).flatMap(
          ([path, item]) =>
            METHODS.filter((m) => item[m]).map((m) => [path, m] as const),
        ).sort(([, a], [, b]) =>
          Number(a === "delete") - Number(b === "delete")
        );
        assert.ok(operations.length >= 9);
        for (const [path, method] of operations) {
          const operation = document.paths[path]![method]!;
          const ref = operation.requestBody?.content["application/json"]?.schema
            .$ref;
          const reply = await fetch(`${origin}${path.replace("{id}", "1")}`, {
            method: method.toUpperCase(),
            headers: auth,
            body: ref ? JSON.stringify(bodies[ref]) : undefined,
          });
          await reply.body?.cancel();
          assert.ok(
            String(reply.status) in operation.responses,
            `${method} ${path}: ${reply.status} is not documented`,
          );
          assert.ok(reply.status < 300, `${method} ${path}: ${reply.status}`);
          if (reply.status >= 400) continue;
          const unauthorized = "401" in operation.responses;
          if (unauthorized) {
            const denied = await fetch(
              `${origin}${path.replace("{id}", "1")}`,
              {
                method: method.toUpperCase(),
                body: ref ? JSON.stringify(bodies[ref]) : undefined,
              },
            );
            await denied.body?.cancel();
            assert.equal(denied.status, 401, `${method} ${path} without token`);
          }
        }
      },
    );

    await t.step("no path accepts a method it does not document", async () => {
      for (const [path, item] of Object.entries(document.paths)) {
        const documented = METHODS.filter((m) => item[m]).map((m) =>
          m.toUpperCase()
        );
        for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
          if (documented.includes(method)) continue;
          const reply = await fetch(`${origin}${path.replace("{id}", "2")}`, {
            method,
            headers: { authorization: `Bearer ${TOKEN}` },
          });
          await reply.body?.cancel();
          assert.equal(reply.status, 405, `${method} ${path}`);
          const allowed = reply.headers.get("allow")!.split(", ").filter((
            m,
          ) => m !== "HEAD");
          assert.deepEqual(allowed.sort(), [...documented].sort(), path);
        }
      }
    });

    await t.step("every route of the app is documented", () => {
      const store = openSqliteMessageStore(":memory:");
      try {
        const app = createMessagesApp({ store, log: createMemoryLog() });
        const routes = app.routes.filter((r) =>
          r.method === "GET" && !r.path.includes("*")
        );
        assert.ok(routes.length >= 4);
        for (const route of routes) {
          const path = route.path.replace(/:(\w+)/g, "{$1}");
          assert.ok(document.paths[path]?.get, `GET ${path} is not documented`);
        }
      } finally {
        store.close();
      }
    });
  } finally {
    assert.equal(await main.stop(), 0);
  }
});
