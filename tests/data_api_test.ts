/**
 * The `data-api` role through `main.ts`, as a user starts it.
 */
import assert from "node:assert/strict";
import { startMain } from "./_test_helpers.ts";

const TOKEN = "subprocess-token-0123";

Deno.test("main.ts data-api serves GET /data with the bearer check and stops on SIGTERM", async () => {
  const main = startMain(["data-api"], {
    env: {
      DATA_API_TOKEN: TOKEN,
      DATA_API_HOST: "127.0.0.1",
      DATA_API_PORT: "0",
    },
  });
  try {
    const line = await main.waitFor(/data-api listening on http:\/\//);
    assert.match(line, /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2} \[INFO\] /);
    const base = /listening on (http:\/\/\S+)/.exec(line)![1]!;

    const ok = await fetch(`${base}/data`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(ok.status, 200);
    const contacts = await ok.json();
    assert.equal(contacts.length, 20);
    for (const contact of contacts) {
      assert.match(contact.phone, /^\+1 [2-9]\d\d-[1-9]\d\d-[1-9]\d{3}$/);
    }

    const denied = await fetch(`${base}/data`, {
      headers: { Authorization: "Bearer wrong" },
    });
    assert.equal(denied.status, 401);
    assert.deepEqual(await denied.json(), { message: "Not valid token" });

    const missing = await fetch(`${base}/data`);
    assert.equal(missing.status, 401);
    assert.equal(await missing.text(), '{"message": "Not valid token"}');

    const post = await fetch(`${base}/data`, { method: "POST" });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET");
    assert.deepEqual(await post.json(), {
      message: "Method POST not allowed: use GET",
    });

    const head = await fetch(`${base}/data`, {
      method: "HEAD",
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(head.status, 405);
    assert.equal(head.headers.get("allow"), "GET");
    await head.body?.cancel();

    const health = await fetch(`${base}/healthz`);
    assert.deepEqual(await health.json(), { status: "ok" });
  } finally {
    assert.equal(await main.stop("SIGTERM"), 0);
  }
  const output = [...main.stdout, ...main.stderr].join("\n");
  assert.ok(!output.includes(TOKEN), "the token must never be logged");
});

Deno.test("main.ts data-api without DATA_API_TOKEN exits 2 naming the variable", async () => {
  const main = startMain(["data-api"], { env: { DATA_API_PORT: "0" } });
  assert.equal(await main.exited(), 2);
  assert.ok(
    main.stderr.some((line) => /DATA_API_TOKEN/.test(line)),
    main.stderr.join("\n"),
  );
});

Deno.test("main.ts data-api with a bad DATA_API_PORT exits 2 naming the value", async () => {
  const main = startMain(["data-api"], {
    env: { DATA_API_TOKEN: TOKEN, DATA_API_PORT: "eighty" },
  });
  assert.equal(await main.exited(), 2);
  assert.ok(
    main.stderr.some((line) => /DATA_API_PORT "eighty"/.test(line)),
    main.stderr.join("\n"),
  );
  assert.ok(!main.stderr.join("\n").includes(TOKEN));
});
