/**
 * The notifier's Apprise URL targets through `main.ts`, against stand-ins of each
 * service on 127.0.0.1 written from the services' documented request shapes.
 */
import assert from "node:assert/strict";
import {
  freePort,
  type MainProcess,
  requireBinary,
  startMain,
} from "./_test_helpers.ts";
import { makeTestTls } from "./_test_tls.ts";

/** A request as a stand-in saw it. */
interface Seen {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string;
}

/** One server standing in for every service: records requests, returns `reply`. */
function serviceStandIn() {
  const seen: Seen[] = [];
  const state = {
    reply: (request: Seen): Response => {
      if (request.path.startsWith("/api/webhooks/")) {
        return new Response(null, { status: 204 });
      }
      if (request.path.endsWith("/sendMessage")) {
        return Response.json({ ok: true, result: { message_id: 1 } });
      }
      return Response.json({ status: 1, request: "r1" });
    },
  };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      const entry: Seen = {
        method: request.method,
        path: url.pathname,
        query: url.search,
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
      };
      seen.push(entry);
      return state.reply(entry);
    },
  );
  const host = `127.0.0.1:${server.addr.port}`;
  return {
    seen,
    state,
    host,
    url: `http://${host}`,
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

function output(main: MainProcess): string {
  return [...main.stdout, ...main.stderr].join("\n");
}

function assertNoSecret(text: string, secrets: string[]) {
  for (const secret of secrets) {
    assert.ok(!text.includes(secret), `${secret} shown in:\n${text}`);
  }
}

const basic = (user: string, password = "") =>
  `Basic ${btoa(`${user}:${password}`)}`;

const SECRETS = [
  "o.PbT0ken",
  "NtfyPa55",
  "GotifyT0k",
  "UserKey123",
  "AppToken456",
  "TgSecret_x",
  "DiscordT0k",
  "JsonPa55",
];

/** The secrets as HTTP Basic credentials, as a service may echo them. */
const ENCODED_SECRETS = [
  btoa("o.PbT0ken:"),
  btoa("me:NtfyPa55"),
  btoa("hook:JsonPa55"),
];

Deno.test("main.ts notifier sends to every scheme the request its service documents", async (t) => {
  const api = serviceStandIn();
  const urls = [
    "pbul://o.PbT0ken",
    `ntfy://me:NtfyPa55@${api.host}/door?priority=high&tags=house,door&click=https://x.test/`,
    `gotify://${api.host}/sub/GotifyT0k?priority=8`,
    "pover://UserKey123@AppToken456",
    "tgram://123456:TgSecret_x/-1001",
    "discord://998877/DiscordT0k",
    `json://hook:JsonPa55@${api.host}/hook`,
  ];
  const { main, base } = await startNotifier({
    NOTIFIER_URLS: `${urls.slice(0, 3).join(", ")}\n${urls.slice(3).join(" ")}`,
    PUSH_BASE_URL: api.url,
    PUSHOVER_BASE_URL: api.url,
    TELEGRAM_BASE_URL: api.url,
    DISCORD_BASE_URL: `${api.url}/`,
    LOG_LEVEL: "DEBUG",
  });
  try {
    await t.step(
      "the start-up log lists the targets masked and warns about the open port",
      async () => {
        await main.waitFor(
          /\[INFO\] Notification targets: pbul:\/\/\*\*\*\*, ntfy:\/\/me:\*\*\*\*@/,
        );
        await main.waitFor(
          /\[WARNING\] NOTIFIER_TOKEN is not set: anyone who reaches the notifier's port can send/,
        );
      },
    );

    await t.step("GET /note fans out and returns every result", async () => {
      const response = await fetch(
        `${base}/note/Door%20%E2%9C%93/Opened%20%3Cnow%3E`,
      );
      assert.equal(response.status, 200);
      const displays = [
        "pbul://****",
        `ntfy://me:****@${api.host}/door`,
        `gotify://${api.host}/sub/****`,
        "pover://****@****",
        "tgram://****/-1001",
        "discord://998877/****",
        `json://hook:****@${api.host}/hook`,
      ];
      assert.deepEqual(await response.json(), {
        results: displays.map((target, i) => ({
          target,
          ok: true,
          status: i === 5 ? 204 : 200,
        })),
      });
      assert.equal(api.seen.length, 7);
    });

    const find = (path: string) => {
      const found = api.seen.filter((s) => s.path === path);
      assert.equal(found.length, 1, path);
      return found[0]!;
    };

    await t.step(
      "Pushbullet: POST /v2/pushes, Basic and Access-Token, a note",
      () => {
        const seen = find("/v2/pushes");
        assert.equal(seen.method, "POST");
        assert.equal(seen.headers.authorization, basic("o.PbT0ken"));
        assert.equal(seen.headers["access-token"], "o.PbT0ken");
        assert.match(seen.headers["content-type"]!, /^application\/json/);
        assert.deepEqual(JSON.parse(seen.body), {
          type: "note",
          title: "Door ✓",
          body: "Opened <now>",
        });
      },
    );

    await t.step(
      "ntfy: POST / as JSON with Basic auth and the option headers",
      () => {
        const seen = find("/");
        assert.equal(seen.method, "POST");
        assert.equal(seen.headers.authorization, basic("me", "NtfyPa55"));
        assert.equal(seen.headers["x-priority"], "high");
        assert.equal(seen.headers["x-tags"], "door,house");
        assert.equal(seen.headers["x-click"], "https://x.test/");
        assert.deepEqual(JSON.parse(seen.body), {
          topic: "door",
          title: "Door ✓",
          message: "Opened <now>",
        });
      },
    );

    await t.step("Gotify: POST /sub/message with X-Gotify-Key", () => {
      const seen = find("/sub/message");
      assert.equal(seen.method, "POST");
      assert.equal(seen.headers["x-gotify-key"], "GotifyT0k");
      assert.equal(seen.headers.authorization, undefined);
      assert.deepEqual(JSON.parse(seen.body), {
        priority: 8,
        title: "Door ✓",
        message: "Opened <now>",
      });
    });

    await t.step("Pushover: POST /1/messages.json form fields", () => {
      const seen = find("/1/messages.json");
      assert.equal(seen.method, "POST");
      assert.match(
        seen.headers["content-type"]!,
        /^application\/x-www-form-urlencoded/,
      );
      assert.deepEqual(Object.fromEntries(new URLSearchParams(seen.body)), {
        token: "AppToken456",
        user: "UserKey123",
        priority: "0",
        title: "Door ✓",
        message: "Opened <now>",
      });
    });

    await t.step(
      "Telegram: POST /bot<token>/sendMessage with chat_id and HTML text",
      () => {
        const seen = find("/bot123456:TgSecret_x/sendMessage");
        assert.equal(seen.method, "POST");
        assert.deepEqual(JSON.parse(seen.body), {
          chat_id: -1001,
          text: "<b>Door ✓</b>\r\nOpened &lt;now&gt;",
          parse_mode: "HTML",
        });
      },
    );

    await t.step(
      "Discord: POST /api/webhooks/<id>/<token> with content",
      () => {
        const seen = find("/api/webhooks/998877/DiscordT0k");
        assert.equal(seen.method, "POST");
        assert.deepEqual(JSON.parse(seen.body), {
          content: "Door ✓\r\nOpened <now>",
        });
      },
    );

    await t.step(
      "JSON: POST /hook with Basic auth and Apprise's payload",
      () => {
        const seen = find("/hook");
        assert.equal(seen.method, "POST");
        assert.equal(seen.headers.authorization, basic("hook", "JsonPa55"));
        assert.deepEqual(JSON.parse(seen.body), {
          version: "1.0",
          title: "Door ✓",
          message: "Opened <now>",
          attachments: [],
          type: "info",
        });
      },
    );

    await t.step("POST /notify carries the type to json://", async () => {
      const response = await fetch(`${base}/notify`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ title: "Disk", body: "Full", type: "failure" }),
      });
      assert.equal(response.status, 200);
      await response.body?.cancel();
      const hook = api.seen.filter((s) => s.path === "/hook").at(-1)!;
      assert.equal(JSON.parse(hook.body).type, "failure");
    });

    await t.step(
      "a service returning 500 is retried, then reported at WARNING (502)",
      async () => {
        const before = api.seen.length;
        api.state.reply = (request) =>
          request.path === "/sub/message"
            ? Response.json({
              error: "Internal",
              errorCode: 500,
              errorDescription: "boom",
            }, { status: 500 })
            : Response.json({});
        const response = await fetch(`${base}/note/T/B`);
        assert.equal(response.status, 502);
        const { results } = await response.json();
        assert.equal(results.filter((r: { ok: boolean }) => !r.ok).length, 1);
        assert.deepEqual(results[2], {
          target: `gotify://${api.host}/sub/****`,
          ok: false,
          status: 500,
          error: "Gotify returned HTTP 500: boom",
        });
        // Three attempts for Gotify, one for each of the six others.
        assert.equal(api.seen.length - before, 9);
        await main.waitFor(
          /\[WARNING\] Cannot send note "T": Gotify returned HTTP 500: boom \(gotify:\/\/127\.0\.0\.1:\d+\/sub\/\*\*\*\*\)/,
        );
      },
    );

    await t.step(
      "services echoing the credentials they were sent: masked in the response and the log",
      async () => {
        api.state.reply = (request) => {
          const form = new URLSearchParams(request.body);
          const echo = [
            request.headers.authorization,
            request.headers["access-token"],
            request.headers["x-gotify-key"],
            request.path,
            form.get("token"),
            form.get("user"),
          ].filter((part) => part !== undefined && part !== null).join(" ");
          return Response.json({ message: `Refused ${echo}` }, {
            status: 401,
          });
        };
        const response = await fetch(`${base}/note/Echo/B`);
        assert.equal(response.status, 502);
        const text = await response.text();
        assert.equal(JSON.parse(text).results.length, 7);
        assertNoSecret(text, [...SECRETS, ...ENCODED_SECRETS]);
        await main.waitFor(/Cannot send note "Echo": JSON endpoint returned/);
      },
    );

    await t.step("SIGTERM stops it; no secret was ever printed", async () => {
      assert.equal(await main.stop("SIGTERM"), 0);
      assertNoSecret(output(main), [...SECRETS, ...ENCODED_SECRETS]);
    });
  } finally {
    await main.stop();
    await api.close();
  }
});

Deno.test("main.ts notifier with an Apprise config file: tags, a target down, the token, de-duplication", async (t) => {
  const api = serviceStandIn();
  const dead = freePort();
  const dir = await Deno.makeTempDir({ prefix: "notifier-test-" });
  const config = `${dir}/apprise.txt`;
  await Deno.writeTextFile(
    config,
    [
      "# home lab targets",
      "",
      `home=ntfy://${api.host}/home`,
      `  home, garage = json://${api.host}/garage`,
      "; the garage's Gotify is down on purpose",
      `garage=gotify://127.0.0.1:${dead}/DeadT0ken`,
      `ntfy://${api.host}/untagged`,
    ].join("\n"),
  );
  const token = "N0tifierT0ken";
  const { main, base } = await startNotifier({
    NOTIFIER_CONFIG: config,
    NOTIFIER_TOKEN: token,
    NOTIFIER_DEDUPE_MS: "60s",
    NOTIFIER_TIMEOUT_MS: "2000",
  });
  const auth = { authorization: `Bearer ${token}` };
  const post = (body: unknown, headers: Record<string, string> = auth) =>
    fetch(`${base}/notify`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const topics = () =>
    api.seen.map((s) => s.path === "/" ? JSON.parse(s.body).topic : s.path);
  try {
    await t.step(
      "sends without the bearer token return 401; / and /healthz stay open",
      async () => {
        for (
          const response of [
            await post({ body: "B" }, {}),
            await post({ body: "B" }, { authorization: "Bearer wrong" }),
            await fetch(`${base}/note/T/B`),
          ]
        ) {
          assert.equal(response.status, 401);
          assert.equal(typeof (await response.json()).message, "string");
        }
        assert.equal((await fetch(`${base}/`)).status, 200);
        assert.equal((await fetch(`${base}/healthz`)).status, 200);
        assert.equal(api.seen.length, 0);
        assert.ok(!output(main).includes("anyone who reaches"));
      },
    );

    await t.step("a tag filter sends to the tagged targets only", async () => {
      const response = await post({
        title: "T",
        body: "home only",
        tag: "home",
      });
      assert.equal(response.status, 200);
      assert.deepEqual(await response.json(), {
        results: [
          { target: `ntfy://${api.host}/home`, ok: true, status: 200 },
          { target: `json://${api.host}/garage`, ok: true, status: 200 },
        ],
      });
      assert.deepEqual(topics().sort(), ["/garage", "home"]);
    });

    await t.step("one target down: 502, the others delivered", async () => {
      api.seen.length = 0;
      const response = await fetch(`${base}/note/Garage/Open`, {
        headers: auth,
      });
      assert.equal(response.status, 502);
      const { results } = await response.json();
      assert.deepEqual(results.map((r: { ok: boolean }) => r.ok), [
        true,
        true,
        false,
        true,
      ]);
      assert.equal(results[2].target, `gotify://127.0.0.1:${dead}/****`);
      assert.equal(results[2].status, null);
      assert.match(results[2].error, /^Gotify unreachable: /);
      assert.deepEqual(topics().sort(), ["/garage", "home", "untagged"]);
      await main.waitFor(
        /\[WARNING\] Cannot send note "Garage": Gotify unreachable: .*\(gotify:\/\/127\.0\.0\.1:\d+\/\*\*\*\*\)/,
      );
    });

    await t.step(
      "the same note within NOTIFIER_DEDUPE_MS is sent once",
      async () => {
        api.seen.length = 0;
        const note = { title: "Dedupe", body: "once", tag: "home" };
        assert.equal((await post(note)).status, 200);
        const repeat = await post(note);
        assert.equal(repeat.status, 200);
        assert.deepEqual(await repeat.json(), { deduplicated: true });
        assert.equal(api.seen.length, 2);
        await main.waitFor(/\[INFO\] Not sending note "Dedupe" again/);
        // Tagged garage: the JSON hook has it already, only the Gotify is left.
        const wider = await post({ ...note, tag: "garage" });
        assert.equal(wider.status, 502);
        const { results } = await wider.json();
        assert.deepEqual(
          results.map((r: { target: string }) => r.target),
          [`gotify://127.0.0.1:${dead}/****`],
        );
        assert.equal(api.seen.length, 2);
        const other = await post({ ...note, type: "warning" });
        assert.equal(other.status, 200);
        await other.body?.cancel();
        assert.equal(api.seen.length, 4);
      },
    );

    await t.step("a urls field is refused with 403", async () => {
      const count = api.seen.length;
      const response = await post({
        body: "B",
        urls: `json://${api.host}/evil`,
      });
      assert.equal(response.status, 403);
      assert.match((await response.json()).message, /urls/);
      assert.equal(api.seen.length, count);
    });

    await t.step(
      "form fields work too; a tag no target has returns 424",
      async () => {
        const form = await fetch(`${base}/notify/`, {
          method: "POST",
          headers: {
            ...auth,
            "content-type": "application/x-www-form-urlencoded",
          },
          body: "body=from+a+form&tag=home+garage",
        });
        assert.equal(form.status, 200);
        assert.equal((await form.json()).results.length, 1);
        const none = await post({ body: "B", tag: "attic" });
        assert.equal(none.status, 424);
        await none.body?.cancel();
      },
    );

    await t.step("no secret was ever printed", async () => {
      assert.equal(await main.stop("SIGTERM"), 0);
      assertNoSecret(output(main), [token, "DeadT0ken"]);
    });
  } finally {
    await main.stop();
    await api.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("main.ts notifier with pbul:// alone returns the push API's reply, as the original notifier", async () => {
  const api = serviceStandIn();
  api.state.reply = () =>
    Response.json({ iden: "ujpah72o0", type: "note", active: true });
  const { main, base } = await startNotifier({
    NOTIFIER_URLS: "pbul://o.UrlT0ken",
    PUSH_BASE_URL: api.url,
  });
  try {
    const response = await fetch(`${base}/note/a/b`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      iden: "ujpah72o0",
      type: "note",
      active: true,
    });
    api.state.reply = () =>
      Response.json({
        error: { message: "Access token is missing or invalid." },
      }, { status: 401 });
    const failed = await fetch(`${base}/note/a/b`);
    assert.equal(failed.status, 502);
    assert.deepEqual(await failed.json(), {
      message: "Push API returned HTTP 401: Access token is missing or invalid",
    });
  } finally {
    assert.equal(await main.stop(), 0);
    await api.close();
    assertNoSecret(output(main), ["o.UrlT0ken"]);
  }
});

Deno.test("main.ts notifier exits 2 on malformed target URLs, their secrets masked", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "notifier-test-" });
  const run = async (env: Record<string, string>) => {
    const main = startMain(["notifier"], {
      env: { NOTIFIER_PORT: "0", ...env },
    });
    const code = await main.exited();
    return {
      code,
      lines: main.stderr.filter((l) => l.startsWith("notifier:")),
      main,
    };
  };
  try {
    await t.step(
      "NOTIFIER_URLS: an unknown scheme and a malformed URL",
      async () => {
        const { code, lines, main } = await run({
          NOTIFIER_URLS:
            "ntfy://h/ok slack://XoxbS3cret/B1 gotify://host.lan\npover://K3yOnly",
        });
        assert.equal(code, 2);
        assert.deepEqual(lines, [
          'notifier: Invalid NOTIFIER_URLS: "slack://****": unknown scheme "slack": use one of pbul, ntfy, ntfys, gotify, gotifys, pover, tgram, discord, json, jsons; "gotify://****": expected gotify://host[:port][/path]/TOKEN; "pover://****@****": expected pover://USER_KEY@APP_TOKEN[/DEVICE]',
        ]);
        assertNoSecret(output(main), ["XoxbS3cret", "K3yOnly"]);
      },
    );

    await t.step(
      "NOTIFIER_CONFIG: a bad URL names the file and the line",
      async () => {
        const path = `${dir}/bad.txt`;
        await Deno.writeTextFile(
          path,
          "# ok\nhome=ntfy://h/a\nwork=gotify://me:Pa55w0rd@host.lan\n",
        );
        const { code, lines, main } = await run({ NOTIFIER_CONFIG: path });
        assert.equal(code, 2);
        assert.deepEqual(lines, [
          `notifier: Invalid NOTIFIER_CONFIG "${path}": line 3: "gotify://****": expected gotify://host[:port][/path]/TOKEN`,
        ]);
        assertNoSecret(output(main), ["Pa55w0rd"]);
      },
    );

    await t.step("NOTIFIER_CONFIG: a line that is no URL", async () => {
      const path = `${dir}/junk.txt`;
      await Deno.writeTextFile(path, "ntfy://h/a\nhello o.S3cret\n");
      const { code, lines, main } = await run({ NOTIFIER_CONFIG: path });
      assert.equal(code, 2);
      assert.deepEqual(lines, [
        `notifier: Invalid NOTIFIER_CONFIG "${path}": line 2 is not [tag[,tag]=]URL, a # comment or blank`,
      ]);
      assertNoSecret(output(main), ["o.S3cret"]);
    });

    await t.step("no target at all names every way to give one", async () => {
      const { code, lines } = await run({});
      assert.equal(code, 2);
      assert.match(
        lines[0]!,
        /^notifier: Missing PUSHBULLET_TOKEN or PUSHBULLET_CONFIG: .*NOTIFIER_URLS or NOTIFIER_CONFIG$/,
      );
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

const openssl = requireBinary("openssl", ["/usr/bin/openssl"]);

Deno.test({
  name: "main.ts notifier sends ntfys://, gotifys:// and jsons:// over HTTPS",
  ignore: openssl.ignore,
  async fn() {
    const tls = await makeTestTls(openssl.path);
    const dir = await Deno.makeTempDir({ prefix: "notifier-test-" });
    await Deno.writeTextFile(`${dir}/ca.pem`, tls.ca);
    const seen: string[] = [];
    const server = Deno.serve(
      {
        hostname: "127.0.0.1",
        port: 0,
        cert: tls.cert,
        key: tls.key,
        onListen: () => {},
      },
      async (request) => {
        const body = await request.json();
        seen.push(
          `${new URL(request.url).pathname} ${body.topic ?? body.title}`,
        );
        return Response.json({});
      },
    );
    const host = `127.0.0.1:${server.addr.port}`;
    const { main, base } = await startNotifier({
      NOTIFIER_URLS:
        `ntfys://${host}/secure gotifys://${host}/GotifyT0k jsons://${host}/hook`,
      // Deno trusts the test CA named here.
      DENO_CERT: `${dir}/ca.pem`,
    });
    try {
      const response = await fetch(`${base}/note/Locked/yes`);
      assert.equal(response.status, 200);
      assert.deepEqual(
        (await response.json()).results.map((r: { ok: boolean }) => r.ok),
        [true, true, true],
      );
      assert.deepEqual(seen.sort(), [
        "/ secure",
        "/hook Locked",
        "/message Locked",
      ]);
    } finally {
      assert.equal(await main.stop(), 0);
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
