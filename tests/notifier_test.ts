/**
 * The notifier role through `main.ts`, against a stand-in of the push API on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { freePort, type MainProcess, startMain } from "./_test_helpers.ts";

const TOKEN = "o.S3cretPushT0ken";

/** A stand-in of the push API: records requests, returns `reply`. */
function pushStandIn() {
  const seen: { path: string; authorization: string | null; body: unknown }[] =
    [];
  const state = {
    reply: (): Response | Promise<Response> =>
      Response.json({ iden: "ujpah72o0", type: "note", active: true }),
  };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      seen.push({
        path: new URL(request.url).pathname,
        authorization: request.headers.get("authorization"),
        body: await request.json(),
      });
      return state.reply();
    },
  );
  return {
    seen,
    state,
    url: `http://127.0.0.1:${server.addr.port}`,
    close: () => server.shutdown(),
  };
}

async function startNotifier(env: Record<string, string>) {
  const port = freePort();
  const main = startMain(["notifier"], {
    env: { NOTIFIER_HOST: "127.0.0.1", NOTIFIER_PORT: String(port), ...env },
  });
  await main.waitFor(/notifier listening on http:\/\/127\.0\.0\.1:\d+/);
  return { main, base: `http://127.0.0.1:${port}` };
}

function assertNoToken(main: MainProcess, token = TOKEN) {
  const output = [...main.stdout, ...main.stderr].join("\n");
  assert.ok(!output.includes(token), `token printed:\n${output}`);
}

Deno.test("main.ts notifier sends notes to the push API", async (t) => {
  const api = pushStandIn();
  const { main, base } = await startNotifier({
    PUSHBULLET_TOKEN: TOKEN,
    PUSH_BASE_URL: api.url,
    PUSH_TIMEOUT_MS: "500",
  });
  try {
    await t.step("GET / returns the usage text", async () => {
      const response = await fetch(`${base}/`);
      assert.equal(response.status, 200);
      assert.equal(await response.text(), "Usage: GET /note/{title}/{body}");
    });

    await t.step("GET /healthz returns ok; errors are JSON", async () => {
      const health = await fetch(`${base}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: "ok" });
      const post = await fetch(`${base}/note/a/b`, { method: "POST" });
      assert.equal(post.status, 405);
      assert.equal(post.headers.get("allow"), "GET");
      assert.deepEqual(await post.json(), {
        message: "Method POST not allowed: Usage: GET /note/{title}/{body}",
      });
      const missing = await fetch(`${base}/note/only-a-title`);
      assert.equal(missing.status, 404);
      assert.equal(typeof (await missing.json()).message, "string");
    });

    await t.step(
      "GET /note/{title}/{body} posts the note with Basic auth",
      async () => {
        const response = await fetch(
          `${base}/note/Front%20door/Opened%20at%207%3A02%20%2F%20%E2%9C%93`,
        );
        assert.equal(response.status, 200);
        assert.deepEqual(await response.json(), {
          iden: "ujpah72o0",
          type: "note",
          active: true,
        });
        assert.deepEqual(api.seen.at(-1), {
          path: "/v2/pushes",
          authorization: `Basic ${btoa(`${TOKEN}:`)}`,
          body: {
            type: "note",
            title: "Front door",
            body: "Opened at 7:02 / ✓",
          },
        });
        await main.waitFor(/\[INFO\] Sent note "Front door"/);
      },
    );

    await t.step("an encoded dot segment is text, not a step up", async () => {
      // fetch would resolve %2e%2e itself: a raw request, as curl sends it.
      const conn = await Deno.connect({
        hostname: "127.0.0.1",
        port: Number(new URL(base).port),
      });
      await conn.write(
        new TextEncoder().encode(
          "GET /note/%2e%2e/B HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n",
        ),
      );
      const raw = await new Response(conn.readable).text();
      assert.match(raw, /^HTTP\/1\.1 200 /);
      assert.deepEqual(
        (api.seen.at(-1)?.body as { title: string }).title,
        "..",
      );
    });

    await t.step(
      "malformed encoding returns 400 without calling the push API",
      async () => {
        const count = api.seen.length;
        const response = await fetch(`${base}/note/%E0%A4%A/body`);
        assert.equal(response.status, 400);
        assert.match(
          (await response.json()).message,
          /malformed percent-encoding/,
        );
        const long = await fetch(`${base}/note/title/${"x".repeat(5000)}`);
        assert.equal(long.status, 400);
        assert.deepEqual(await long.json(), {
          message: "Invalid body: 5000 characters, the limit is 4096",
        });
        assert.equal(api.seen.length, count);
      },
    );

    await t.step(
      "a push API error returns 502 with the upstream status",
      async () => {
        api.state.reply = () =>
          Response.json({
            error: {
              code: "invalid_access_token",
              message: "Access token is missing or invalid.",
            },
          }, { status: 401 });
        const response = await fetch(`${base}/note/a/b`);
        assert.equal(response.status, 502);
        assert.deepEqual(await response.json(), {
          message:
            "Push API returned HTTP 401: Access token is missing or invalid",
        });
        await main.waitFor(
          /\[WARNING\] Cannot send note "a": Push API returned HTTP 401/,
        );
      },
    );

    await t.step(
      "a push API slower than PUSH_TIMEOUT_MS returns 502",
      async () => {
        api.state.reply = () =>
          new Promise((resolve) =>
            setTimeout(() => resolve(Response.json({})), 1500)
          );
        const response = await fetch(`${base}/note/a/b`);
        assert.equal(response.status, 502);
        assert.deepEqual(await response.json(), {
          message: "Push API did not respond within 500 ms",
        });
      },
    );

    await t.step(
      "SIGTERM stops it with exit code 0; the token was never printed",
      async () => {
        assert.equal(await main.stop("SIGTERM"), 0);
        assertNoToken(main);
      },
    );
  } finally {
    await main.stop();
    await api.close();
  }
});

Deno.test("main.ts notifier returns 502 when the push API is unreachable", async () => {
  const { main, base } = await startNotifier({
    PUSHBULLET_TOKEN: TOKEN,
    PUSH_BASE_URL: `http://127.0.0.1:${freePort()}`,
  });
  try {
    const response = await fetch(`${base}/note/a/b`);
    assert.equal(response.status, 502);
    assert.match((await response.json()).message, /^Push API unreachable: /);
  } finally {
    assert.equal(await main.stop(), 0);
    assertNoToken(main);
  }
});

Deno.test("main.ts notifier reads the token from PUSHBULLET_CONFIG", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "notifier-test-" });
  const api = pushStandIn();
  try {
    for (
      const [name, content, token] of [
        [
          "a file holding the token, trimmed",
          "\n  o.FileT0ken \n",
          "o.FileT0ken",
        ],
        ["a JSON file", '{"access_token": "o.JsonT0ken"}\n', "o.JsonT0ken"],
        ["a NAME=token line", "PUSHBULLET_TOKEN=o.LineT0ken\n", "o.LineT0ken"],
      ]
    ) {
      await t.step(name!, async () => {
        const path = `${dir}/token`;
        await Deno.writeTextFile(path, content!);
        const { main, base } = await startNotifier({
          PUSHBULLET_CONFIG: path,
          PUSH_BASE_URL: api.url,
        });
        try {
          const response = await fetch(`${base}/note/t/b`);
          assert.equal(response.status, 200);
          await response.body?.cancel();
          assert.equal(
            api.seen.at(-1)?.authorization,
            `Basic ${btoa(`${token}:`)}`,
          );
          await main.waitFor(/Push token from the file/);
        } finally {
          assert.equal(await main.stop(), 0);
          assertNoToken(main, token);
        }
      });
    }
  } finally {
    await api.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("main.ts notifier exits 2 naming the settings when the token is missing or bad", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "notifier-test-" });
  const run = async (env: Record<string, string>) => {
    const main = startMain(["notifier"], {
      env: { NOTIFIER_PORT: "0", ...env },
    });
    const code = await main.exited();
    return { code, stderr: main.stderr.join("\n"), main };
  };
  try {
    await t.step("neither setting set: names both", async () => {
      const { code, stderr } = await run({});
      assert.equal(code, 2);
      assert.match(
        stderr,
        /^notifier: Missing PUSHBULLET_TOKEN or PUSHBULLET_CONFIG: /m,
      );
    });

    await t.step("a malformed token: one line, about it alone", async () => {
      const { code, main } = await run({ PUSHBULLET_TOKEN: "two words" });
      assert.equal(code, 2);
      assert.deepEqual(
        main.stderr.filter((line) => line.startsWith("notifier:")),
        [
          "notifier: Invalid PUSHBULLET_TOKEN: expected printable ASCII without spaces (letters, digits, punctuation), as a token in an HTTP header",
        ],
      );
    });

    await t.step(
      "an empty token: names the file and both settings",
      async () => {
        for (
          const [name, content, reason] of [
            ["empty", " \n", "the file is empty"],
            ["empty.json", '{"token": ""}', "the JSON file has no"],
          ]
        ) {
          await Deno.writeTextFile(`${dir}/${name}`, content!);
          const { code, stderr } = await run({
            PUSHBULLET_CONFIG: `${dir}/${name}`,
          });
          assert.equal(code, 2);
          assert.match(
            stderr,
            new RegExp(
              `^notifier: Invalid PUSHBULLET_CONFIG "${dir}/${name}": ${reason}.*: write the token in it or set PUSHBULLET_TOKEN$`,
              "m",
            ),
          );
        }
      },
    );

    await t.step("a missing token file: names the file", async () => {
      const { code, stderr } = await run({
        PUSHBULLET_CONFIG: `${dir}/missing`,
      });
      assert.equal(code, 2);
      assert.match(
        stderr,
        new RegExp(
          `^notifier: Invalid PUSHBULLET_CONFIG "${dir}/missing": cannot read the file`,
          "m",
        ),
      );
    });

    await t.step(
      "malformed settings are reported by name; the token is never printed",
      async () => {
        const { code, stderr, main } = await run({
          PUSHBULLET_TOKEN: TOKEN,
          PUSH_BASE_URL: "not a url",
          PUSH_TIMEOUT_MS: "soon",
        });
        assert.equal(code, 2);
        assert.match(stderr, /Invalid PUSH_BASE_URL "not a url"/);
        assert.match(stderr, /Invalid PUSH_TIMEOUT_MS "soon"/);
        assertNoToken(main);
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
