import assert from "node:assert/strict";
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { bodyText } from "./body_text.ts";

function echoApp(): Hono {
  const app = new Hono();
  app.post("/echo", async (c) => c.text(await bodyText(c)));
  app.onError((error, c) =>
    error instanceof HTTPException
      ? c.json({ message: error.message }, error.status)
      : c.text("unexpected", 500)
  );
  return app;
}

Deno.test("bodyText() reads UTF-8 text, and returns 400 to other bytes", async () => {
  const app = echoApp();
  const text = await app.request("/echo", { method: "POST", body: "héllo" });
  assert.equal(await text.text(), "héllo");
  const bytes = await app.request("/echo", {
    method: "POST",
    body: new Uint8Array([0x68, 0xff, 0x6f]),
  });
  assert.equal(bytes.status, 400);
  assert.deepEqual(await bytes.json(), {
    message: "Invalid body: it is not valid UTF-8 text",
  });
});

Deno.test("bodyText() returns 400 to a body cut short", async () => {
  const cut = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("half"));
      controller.error(new Error("connection reset"));
    },
  });
  const response = await echoApp().request("/echo", {
    method: "POST",
    body: cut,
  });
  assert.equal(response.status, 400);
  assert.match((await response.json()).message, /cut short/);
});
