import assert from "node:assert/strict";
import { Hono } from "hono";
import { readinessProblem, readyzHandler } from "./readyz.ts";

Deno.test("readyzHandler() returns 200 when ready, 503 with the problem", async () => {
  let problem: string | undefined = "The store does not respond";
  const app = new Hono();
  app.get("/readyz", readyzHandler(() => Promise.resolve(problem)));
  let response = await app.request("/readyz");
  assert.equal(response.status, 503);
  assert.deepEqual(await response.json(), {
    message: "The store does not respond",
  });
  problem = undefined;
  response = await app.request("/readyz");
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { status: "ready" });
});

Deno.test("readinessProblem() names a throwing or slow check", async () => {
  assert.equal(
    await readinessProblem(() => {
      throw new Error("disk gone");
    }),
    "disk gone",
  );
  assert.equal(
    await readinessProblem(() => new Promise(() => {}), 10),
    "The readiness check took more than 10 ms",
  );
});
