/**
 * The `messages` role through `main.ts` as a subprocess: the HTTP contract, settings,
 * start-up failures and a clean stop.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { type MainProcess, startMain } from "./_test_helpers.ts";

const PATH = "/api/message/resource";

async function startMessages(
  env: Record<string, string> = {},
  cwd?: string,
): Promise<{ main: MainProcess; url: string }> {
  const main = startMain(["messages"], {
    env: { MESSAGES_HOST: "127.0.0.1", MESSAGES_PORT: "0", ...env },
    cwd,
  });
  const line = await main.waitFor(/messages listening on http:\/\/\S+/);
  return { main, url: /http:\/\/\S+/.exec(line)![0] };
}

async function call(
  url: string,
  method: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; json: () => unknown }> {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined
      ? undefined
      : typeof body === "string"
      ? body
      : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) };
}

Deno.test("messages role serves the contract's table over HTTP", async (t) => {
  const dir = Deno.makeTempDirSync({ prefix: "messages-e2e-" });
  const { main, url } = await startMessages({}, dir);
  const base = `${url}${PATH}`;
  try {
    await t.step("the default database file is ./data/messages.sqlite3", () => {
      assert.ok(Deno.statSync(`${dir}/data/messages.sqlite3`).isFile);
    });
    await t.step("says that writes are open without MESSAGES_TOKEN", () => {
      assert.ok(
        main.stderr.some((line) =>
          /\[INFO\] MESSAGES_TOKEN is not set: every client may create/.test(
            line,
          )
        ),
      );
    });
    await t.step("GET /healthz", async () => {
      const health = await call(`${url}/healthz`, "GET");
      assert.equal(health.status, 200);
      assert.deepEqual(health.json(), { status: "ok" });
    });
    await t.step("other methods on /healthz: 405 with Allow", async () => {
      for (const method of ["PUT", "POST", "DELETE"]) {
        const response = await fetch(`${url}/healthz`, { method });
        assert.equal(response.status, 405, method);
        assert.equal(response.headers.get("allow"), "GET, HEAD");
        assert.match(response.headers.get("content-type") ?? "", /json/);
        assert.deepEqual(await response.json(), {
          message: `Method ${method} not allowed: use GET, HEAD`,
        });
      }
    });
    await t.step("list, create, read, update, delete", async () => {
      assert.deepEqual((await call(base, "GET")).json(), []);
      const created = await call(base, "POST", {
        author: "Ada",
        message: "Hi",
        extra: 1,
      });
      assert.equal(created.status, 201);
      assert.deepEqual(created.json(), { id: 1, author: "Ada", message: "Hi" });
      const second = await call(base, "POST", { author: "Bo", message: "Yo" });
      assert.deepEqual(second.json(), { id: 2, author: "Bo", message: "Yo" });
      const read = await call(`${base}/2`, "GET");
      assert.equal(read.status, 200);
      assert.deepEqual(read.json(), { id: 2, author: "Bo", message: "Yo" });
      const updated = await call(`${base}/1`, "POST", {
        author: "Ada",
        message: "Bye",
      });
      assert.equal(updated.status, 200);
      assert.deepEqual(updated.json(), { author: "Ada", message: "Bye" });
      const removed = await call(`${base}/2`, "DELETE");
      assert.equal(removed.status, 204);
      assert.equal(removed.text, "");
      assert.deepEqual((await call(base, "GET")).json(), [
        { id: 1, author: "Ada", message: "Bye" },
      ]);
    });
    await t.step(
      "errors are JSON with the documented status codes",
      async () => {
        const cases: [string, string, unknown, number][] = [
          [`${base}/2`, "GET", undefined, 404],
          [`${base}/2`, "POST", { author: "a", message: "b" }, 404],
          [`${base}/2`, "DELETE", undefined, 404],
          [`${base}/0`, "GET", undefined, 404],
          [`${base}/-3`, "GET", undefined, 404],
          [`${base}/abc`, "GET", undefined, 404],
          [`${base}/`, "GET", undefined, 404],
          [`${base}/1/`, "GET", undefined, 404],
          [`${base}/`, "POST", { author: "a", message: "b" }, 404],
          [base, "POST", "{not json", 400],
          [base, "POST", [1], 400],
          [base, "POST", { author: "a" }, 400],
          [base, "POST", { author: "", message: "b" }, 400],
          [base, "POST", { author: "a", message: " \t\n" }, 400],
          [base, "POST", { author: "\u00a0\u3000", message: "b" }, 400],
          [base, "POST", { author: 1, message: "b" }, 400],
          [`${base}/1`, "POST", { author: "a", message: null }, 400],
          [base, "POST", { author: "a", message: "x".repeat(70_000) }, 413],
          [base, "PUT", { author: "a", message: "b" }, 405],
          [`${base}/1`, "PUT", { author: "a" }, 400],
          [`${base}/1`, "PATCH", {}, 400],
          [`${base}/2`, "PATCH", { author: "a" }, 404],
        ];
        for (const [target, method, body, status] of cases) {
          const response = await call(target, method, body);
          assert.equal(response.status, status, `${method} ${target}`);
          assert.equal(
            typeof (response.json() as { message: string }).message,
            "string",
          );
        }
        assert.deepEqual((await call(base, "GET")).json(), [
          { id: 1, author: "Ada", message: "Bye" },
        ]);
      },
    );
    await t.step("a chunked body is read under the same limit", async () => {
      const post = (text: string) =>
        fetch(base, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: new Blob([text]).stream(), // sent chunked: no declared length
        });
      const created = await post('{"author":"Cy","message":"chunked"}');
      assert.equal(created.status, 201);
      assert.deepEqual(await created.json(), {
        id: 2,
        author: "Cy",
        message: "chunked",
      });
      const huge = await post(
        JSON.stringify({ author: "a", message: "x".repeat(70_000) }),
      );
      assert.equal(huge.status, 413);
      await huge.body?.cancel();
      const removed = await call(`${base}/2`, "DELETE");
      assert.equal(removed.status, 204);
    });
  } finally {
    assert.equal(await main.stop("SIGTERM"), 0);
  }
  // Every line is a log line: no runtime warning slips in between.
  for (const line of main.stderr) {
    assert.match(
      line,
      /^\d\d\/\d\d\/\d{4} \d\d:\d\d:\d\d \[(DEBUG|INFO|WARNING|ERROR)\] /,
    );
  }
  assert.ok(main.stderr.some((l) => /\[INFO\] Stopped/.test(l)));
  assert.ok(
    !main.stderr.some((l) => /\[ERROR\]/.test(l)),
    main.stderr.join("\n"),
  );
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("messages role with MESSAGES_TOKEN guards writes and never logs the token", async () => {
  const token = "tok-8c1f0d2e9b";
  const { main, url } = await startMessages({
    MESSAGES_DB: ":memory:",
    MESSAGES_TOKEN: token,
  });
  const base = `${url}${PATH}`;
  try {
    const fields = { author: "Ada", message: "Hi" };
    const denied = await call(base, "POST", fields);
    assert.equal(denied.status, 401);
    assert.equal(
      typeof (denied.json() as { message: string }).message,
      "string",
    );
    const wrong = await call(base, "POST", fields, {
      authorization: "Bearer nope",
    });
    assert.equal(wrong.status, 401);
    const auth = { authorization: `Bearer ${token}` };
    assert.equal((await call(base, "POST", fields, auth)).status, 201);
    assert.equal((await call(`${base}/1`, "POST", fields)).status, 401);
    assert.equal((await call(`${base}/1`, "DELETE")).status, 401);
    assert.equal((await call(`${base}/1`, "GET")).status, 200);
    assert.equal((await call(base, "GET")).status, 200);
    assert.equal((await call(`${base}/1`, "POST", fields, auth)).status, 200);
    assert.equal(
      (await call(`${base}/1`, "DELETE", undefined, auth)).status,
      204,
    );
  } finally {
    assert.equal(await main.stop("SIGTERM"), 0);
  }
  const output = [...main.stdout, ...main.stderr].join("\n");
  assert.ok(!output.includes(token));
  assert.ok(!output.includes("MESSAGES_TOKEN is not set"));
});

Deno.test("messages role stops with exit code 2 on a malformed setting", async () => {
  const main = startMain(["messages"], {
    env: { MESSAGES_PORT: "eighty", MESSAGES_TOKEN: "t" },
  });
  assert.equal(await main.exited(), 2);
  assert.ok(main.stderr.some((l) => /MESSAGES_PORT "eighty"/.test(l)));
});

Deno.test("messages role exits 2 on a MESSAGES_DB URL of another scheme, creating nothing", async () => {
  const cwd = Deno.makeTempDirSync({ prefix: "messages-e2e-" });
  const main = startMain(["messages"], {
    cwd,
    env: {
      MESSAGES_PORT: "0",
      MESSAGES_DB: "postgress://app:pa55word@127.0.0.1/app",
    },
  });
  // A role that served instead would never exit by itself.
  const served = setTimeout(() => main.stop("SIGTERM"), 15_000);
  assert.equal(await main.exited(), 2);
  clearTimeout(served);
  const output = [...main.stdout, ...main.stderr].join("\n");
  assert.match(output, /Invalid MESSAGES_DB "postgress:\/\/app:\*\*\*@/);
  assert.ok(!output.includes("pa55word"), output);
  // Not an SQLite file at ./postgress:/app:pa55word@127.0.0.1/app.
  assert.deepEqual([...Deno.readDirSync(cwd)], []);
  Deno.removeSync(cwd, { recursive: true });
});

Deno.test("messages role exits 2 on a PostgreSQL URL that does not parse", async () => {
  const main = startMain(["messages"], {
    env: {
      MESSAGES_PORT: "0",
      MESSAGES_DB: "postgres://app:pa55word@[::1/app",
    },
  });
  const served = setTimeout(() => main.stop("SIGTERM"), 15_000);
  assert.equal(await main.exited(), 2);
  clearTimeout(served);
  const output = [...main.stdout, ...main.stderr].join("\n");
  assert.match(
    output,
    /Invalid MESSAGES_DB "postgres:\/\/app:\*\*\*@\[::1\/app": not a URL/,
  );
  assert.ok(!output.includes("pa55word"), output);
});

Deno.test("messages role exits 1 naming MESSAGES_DB when the file cannot be opened", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "messages-e2e-" });
  Deno.writeTextFileSync(`${dir}/file`, "not a folder");
  const main = startMain(["messages"], {
    env: { MESSAGES_PORT: "0", MESSAGES_DB: `${dir}/file/m.db` },
  });
  assert.equal(await main.exited(), 1);
  assert.ok(
    main.stderr.some((l) =>
      /\[ERROR\] Cannot start messages: .*MESSAGES_DB/.test(l)
    ),
    main.stderr.join("\n"),
  );
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("messages role responds 503 while another process holds the database lock, and loses nothing", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "messages-e2e-" });
  const db = `${dir}/m.sqlite3`;
  const { main, url } = await startMessages({ MESSAGES_DB: db });
  const base = `${url}${PATH}`;
  const other = new DatabaseSync(db);
  try {
    assert.equal(
      (await call(base, "POST", { author: "a", message: "1" })).status,
      201,
    );
    // The second process (here: this one) takes the write lock and keeps it.
    other.exec("BEGIN IMMEDIATE");
    other.exec("INSERT INTO messages VALUES (2, 'other', 'held')");
    const started = performance.now();
    const response = await fetch(base, {
      method: "POST",
      body: JSON.stringify({ author: "b", message: "blocked" }),
    });
    const waited = performance.now() - started;
    assert.equal(response.status, 503);
    assert.equal(response.headers.get("retry-after"), "1");
    const { message } = await response.json();
    assert.match(message, /busy/i);
    assert.match(message, /another writer/);
    assert.match(message, /try again/);
    assert.ok(waited < 2000, `responded after ${waited} ms`);
    // Reads go on meanwhile.
    assert.equal(((await call(base, "GET")).json() as unknown[]).length, 1);
    other.exec("COMMIT");
    const retried = await call(base, "POST", { author: "b", message: "retry" });
    assert.equal(retried.status, 201);
    assert.deepEqual((await call(base, "GET")).json(), [
      { id: 1, author: "a", message: "1" },
      { id: 2, author: "other", message: "held" },
      { id: 3, author: "b", message: "retry" },
    ]);
  } finally {
    other.close();
    assert.equal(await main.stop("SIGTERM"), 0);
    Deno.removeSync(dir, { recursive: true });
  }
  assert.ok(
    main.stderr.some((l) => /\[WARNING\] .*busy/i.test(l)),
    main.stderr.join("\n"),
  );
  assert.ok(
    !main.stderr.some((l) => /\[ERROR\]/.test(l)),
    main.stderr.join("\n"),
  );
});
