import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createDataApiApp } from "./app.ts";
import { createRegistry } from "../../lib/metrics/registry.ts";

const TOKEN = "tok-7f3a9c";
const PHONE = /^\+1 ([2-9]\d{2})-([1-9]\d{2})-([1-9]\d{3})$/;

function newApp() {
  return createDataApiApp({ token: TOKEN, log: createMemoryLog() });
}

Deno.test("createDataApiApp() responds to GET /data with 20 contacts when the token is valid", async () => {
  const app = newApp();
  const response = await app.request("/data", {
    headers: { Authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type")!, /^application\/json/);
  const body = await response.json();
  assert.ok(Array.isArray(body));
  assert.equal(body.length, 20);
  for (const contact of body) {
    assert.deepEqual(Object.keys(contact).sort(), ["email", "name", "phone"]);
    assert.match(contact.phone, PHONE);
    assert.match(contact.email, /@example\.com$/);
    assert.equal(typeof contact.name, "string");
  }
});

Deno.test("createDataApiApp() draws phones in range, fresh on every request", async () => {
  const app = newApp();
  const seen = new Set<string>();
  const names: string[][] = [];
  for (let i = 0; i < 200; i++) {
    const response = await app.request("/data", {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    const body: { phone: string; name: string }[] = await response.json();
    names.push(body.map((c) => c.name));
    for (const { phone } of body) {
      const [area, prefix, line] = PHONE.exec(phone)!.slice(1).map(Number);
      assert.ok(area! >= 200 && area! <= 999);
      assert.ok(prefix! >= 100 && prefix! <= 999);
      assert.ok(line! >= 1000 && line! <= 9999);
      seen.add(phone);
    }
  }
  // 4000 draws among 6.5e9 numbers: repeats are possible but rare.
  assert.ok(seen.size > 3990, `only ${seen.size} distinct phones`);
  for (const list of names) assert.deepEqual(list, names[0]);
});

Deno.test("createDataApiApp() returns 401 with the exact body when the header is bad", async (t) => {
  const app = newApp();
  const variants: [string, Record<string, string>][] = [
    ["no header", {}],
    ["empty header", { Authorization: "" }],
    ["the bare token", { Authorization: TOKEN }],
    ["lower-case scheme", { Authorization: `bearer ${TOKEN}` }],
    ["another scheme", { Authorization: `Basic ${btoa(`${TOKEN}:`)}` }],
    ["Bearer without a token", { Authorization: "Bearer " }],
    ["a wrong token", { Authorization: "Bearer nope" }],
    ["a token prefix", { Authorization: `Bearer ${TOKEN.slice(0, -1)}` }],
    ["a longer token", { Authorization: `Bearer ${TOKEN}x` }],
    ["two spaces", { Authorization: `Bearer  ${TOKEN}` }],
  ];
  for (const [name, headers] of variants) {
    await t.step(name, async () => {
      const response = await app.request("/data", { headers });
      assert.equal(response.status, 401);
      assert.match(
        response.headers.get("content-type")!,
        /^application\/json/,
      );
      const text = await response.text();
      assert.equal(text, '{"message": "Not valid token"}');
      assert.deepEqual(JSON.parse(text), { message: "Not valid token" });
    });
  }
});

Deno.test("createDataApiApp() returns 405 with Allow: GET when the method is not GET", async (t) => {
  const app = newApp();
  for (
    const method of ["POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"]
  ) {
    await t.step(method, async () => {
      const response = await app.request("/data", {
        method,
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(response.status, 405);
      assert.equal(response.headers.get("allow"), "GET");
      if (method === "HEAD") {
        // The length of the body a GET of this response would carry.
        const body = JSON.stringify({
          message: "Method HEAD not allowed: use GET",
        });
        assert.equal(
          response.headers.get("content-length"),
          String(body.length),
        );
        return await response.body?.cancel();
      }
      assert.deepEqual(await response.json(), {
        message: `Method ${method} not allowed: use GET`,
      });
    });
  }
});

Deno.test("createDataApiApp() responds to /healthz, and 404 on other paths", async () => {
  const app = newApp();
  const health = await app.request("/healthz");
  assert.deepEqual(await health.json(), { status: "ok" });
  const missing = await app.request("/data/1", {
    headers: { Authorization: `Bearer ${TOKEN}` },
  });
  assert.equal(missing.status, 404);
  assert.equal(typeof (await missing.json()).message, "string");
});

Deno.test("createDataApiApp() responds to /readyz and counts requests by route when given metrics", async () => {
  const registry = createRegistry();
  const app = createDataApiApp({
    token: TOKEN,
    log: createMemoryLog(),
    metrics: registry.with({ role: "data-api" }),
  });
  const ready = await app.request("/readyz");
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), { status: "ready" });
  await app.request("/data", { headers: { authorization: `Bearer ${TOKEN}` } });
  await app.request("/data");
  const text = await registry.render();
  assert.match(
    text,
    /^homewire_http_requests_total\{role="data-api",route="\/data",method="GET",status_class="2xx"\} 1$/m,
  );
  assert.match(
    text,
    /^homewire_http_requests_total\{role="data-api",route="\/data",method="GET",status_class="4xx"\} 1$/m,
  );
});

Deno.test("createDataApiApp() serves /data through one handler, no middleware", () => {
  // Hono's one-handler path is what keeps /data near a bare Deno.serve
  // (deno task bench data-api). Without metrics there is no middleware.
  assert.deepEqual(
    newApp().routes.map(({ method, path }) => `${method} ${path}`),
    ["GET /healthz", "GET /readyz", "ALL /data"],
  );
});
