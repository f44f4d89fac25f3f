import assert from "node:assert/strict";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { createRegistry } from "./registry.ts";
import { httpMetrics } from "./http_metrics.ts";

function appWithMetrics() {
  const registry = createRegistry();
  const app = new Hono();
  app.use(httpMetrics(registry.with({ role: "test" })));
  app.get("/items/:id", (c) => c.json({ id: c.req.param("id") }));
  app.post("/items", () => {
    throw new HTTPException(400, { message: "Bad" });
  });
  app.get("/boom", () => {
    throw new Error("boom");
  });
  app.onError((error, c) =>
    c.json(
      { message: error.message },
      error instanceof HTTPException ? error.status : 500,
    )
  );
  return { app, registry };
}

Deno.test("httpMetrics() counts by route pattern, never the raw path", async () => {
  const { app, registry } = appWithMetrics();
  await app.request("/items/1");
  await app.request("/items/2");
  await app.request('/items/"%0a', { method: "HEAD" });
  await app.request("/items", { method: "POST" });
  await app.request("/boom");
  await app.request("/nothing/../here%22");
  await app.request("/items/3", { method: "BREW" });
  const text = await registry.render();
  const count = (labels: string) =>
    text.match(
      new RegExp(`^homewire_http_requests_total\\{${labels}\\} (\\d+)$`, "m"),
    )?.[1];
  assert.equal(
    count('role="test",route="/items/:id",method="GET",status_class="2xx"'),
    "2",
  );
  assert.equal(
    count('role="test",route="/items/:id",method="HEAD",status_class="2xx"'),
    "1",
  );
  assert.equal(
    count('role="test",route="/items",method="POST",status_class="4xx"'),
    "1",
  );
  assert.equal(
    count('role="test",route="/boom",method="GET",status_class="5xx"'),
    "1",
  );
  assert.equal(
    count('role="test",route="/\\*",method="GET",status_class="4xx"'),
    "1",
  );
  assert.equal(
    count('role="test",route="/\\*",method="other",status_class="4xx"'),
    "1",
  );
  assert.doesNotMatch(text, /here|%22|items\/1/);
  assert.match(
    text,
    /^homewire_http_request_duration_seconds_count\{role="test",route="\/items\/:id",method="GET"\} 2$/m,
  );
});
