import assert from "node:assert/strict";
import { Hono } from "hono";
import { cors } from "./cors.ts";

const PAGE = "http://localhost:5173";

function app(allowed: "*" | string[]) {
  const app = new Hono();
  app.use(cors({
    allowed,
    methods: ["GET", "POST", "PUT", "DELETE"],
    headers: ["Authorization", "Content-Type"],
    expose: ["X-Total-Count", "ETag"],
    setting: "X_ALLOW_ORIGIN",
  }));
  app.get("/r", (c) => c.json([], 200, { "x-total-count": "0" }));
  app.get("/fails", () => {
    throw new Error("boom");
  });
  return app;
}

const preflight = (origin: string) => ({
  method: "OPTIONS",
  headers: {
    origin,
    "access-control-request-method": "DELETE",
    "access-control-request-headers": "authorization,content-type",
  },
});

Deno.test("cors() with a list", async (t) => {
  const listed = app([PAGE, "https://b.example"]);

  await t.step(
    "names a listed origin, with Vary and exposed headers",
    async () => {
      const response = await listed.request("/r", {
        headers: { origin: PAGE },
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("access-control-allow-origin"), PAGE);
      assert.equal(response.headers.get("vary"), "Origin");
      assert.equal(
        response.headers.get("access-control-expose-headers"),
        "X-Total-Count, ETag",
      );
      await response.body?.cancel();
    },
  );

  await t.step("also on error and 404 responses", async () => {
    for (const path of ["/fails", "/nowhere"]) {
      const response = await listed.request(path, {
        headers: { origin: PAGE },
      });
      assert.equal(response.headers.get("access-control-allow-origin"), PAGE);
      await response.body?.cancel();
    }
  });

  await t.step("responds 204 to a listed origin's preflight", async () => {
    const response = await listed.request("/r", preflight(PAGE));
    assert.equal(response.status, 204);
    assert.equal(response.headers.get("access-control-allow-origin"), PAGE);
    assert.equal(
      response.headers.get("access-control-allow-methods"),
      "GET, POST, PUT, DELETE",
    );
    assert.equal(
      response.headers.get("access-control-allow-headers"),
      "Authorization, Content-Type",
    );
    assert.equal(response.headers.get("access-control-max-age"), "86400");
    assert.equal(response.headers.get("vary"), "Origin");
  });

  await t.step(
    "gives another origin no CORS header, its preflight 403",
    async () => {
      const response = await listed.request("/r", {
        headers: { origin: "https://evil.example" },
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get("access-control-allow-origin"), null);
      assert.equal(response.headers.get("access-control-expose-headers"), null);
      assert.equal(response.headers.get("vary"), "Origin");
      await response.body?.cancel();
      const refused = await listed.request(
        "/r",
        preflight("https://evil.example"),
      );
      assert.equal(refused.status, 403);
      assert.equal(refused.headers.get("access-control-allow-origin"), null);
      assert.match(
        (await refused.json()).message,
        /X_ALLOW_ORIGIN does not list/,
      );
    },
  );

  await t.step("leaves a request without Origin alone", async () => {
    const response = await listed.request("/r");
    assert.equal(response.headers.get("access-control-allow-origin"), null);
    assert.equal(response.headers.get("vary"), null);
    await response.body?.cancel();
  });
});

Deno.test("cors() with * allows every origin without Vary", async () => {
  const any = app("*");
  const response = await any.request("/r", {
    headers: { origin: "https://any.example" },
  });
  assert.equal(response.headers.get("access-control-allow-origin"), "*");
  assert.equal(response.headers.get("vary"), null);
  await response.body?.cancel();
  const asked = await any.request("/r", preflight("https://any.example"));
  assert.equal(asked.status, 204);
  assert.equal(asked.headers.get("access-control-allow-origin"), "*");
});
