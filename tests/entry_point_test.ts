/**
 * The front door as a user meets it: `main.ts` run as a subprocess.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  freePort,
  makeFakeIio,
  startMain,
  waitForHttp,
} from "./_test_helpers.ts";

const ROLE_NAMES = [
  "forwarder",
  "messages",
  "proxy",
  "data-api",
  "table",
  "collector",
  "reader",
  "notifier",
];
const LOG_LINE =
  /^\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}:\d{2} \[(DEBUG|INFO|WARNING|ERROR)\] /;

Deno.test("--help lists every role and setting, exit 0", async () => {
  const child = startMain(["--help"]);
  assert.equal(await child.exited(), 0);
  const help = child.stdout.join("\n");
  for (const role of ROLE_NAMES) {
    assert.match(help, new RegExp(`^  ${role}\\s+\\S`, "m"));
  }
  for (
    const name of [
      "LOG_LEVEL",
      "MESSAGES_PORT",
      "QUEUE_URL",
      "DATA_API_TOKEN",
      "TSDB_HOST",
    ]
  ) {
    assert.match(help, new RegExp(`\\b${name}\\b`));
  }
});

Deno.test("an unknown role and a bad setting stop start-up with exit 2, one line each", async () => {
  const child = startMain(["bogus", "messages"], {
    env: { MESSAGES_PORT: "http", LOG_FORMAT: "xml" },
  });
  assert.equal(await child.exited(), 2);
  assert.deepEqual(child.stderr.filter((line) => line.trim() !== ""), [
    'Unknown role "bogus": expected one of forwarder, messages, proxy, data-api, table, collector, reader, notifier',
    'Invalid LOG_FORMAT "xml": expected one of text, json',
    'messages: Invalid MESSAGES_PORT "http": expected an integer from 0 to 65535',
    "Run with --help to see every role and setting.",
  ]);
});

Deno.test("a misspelt second role, --once without the collector, a bad host: exit 2", async () => {
  const child = startMain(["messages", "proxxy", "--once"], {
    env: { MESSAGES_HOST: "127.0.0.1:8001" },
  });
  assert.equal(await child.exited(), 2);
  assert.deepEqual(child.stderr.filter((line) => line.trim() !== ""), [
    'Option "--once" applies to collector only: name that role too (collector --once)',
    'messages: Invalid MESSAGES_HOST "127.0.0.1:8001": expected an IP address or a host name, without scheme, port or path',
    'messages: Unknown command or role "proxxy" after messages: expected "messages backup PATH" or a role name (see --help)',
    "Run with --help to see every role and setting.",
  ]);
});

Deno.test("--once next to a long-running role: exit 2", async () => {
  const child = startMain(["collector", "--once", "messages"], {
    env: { TSDB_HOST: "127.0.0.1" },
  });
  assert.equal(await child.exited(), 2);
  assert.equal(
    child.stderr[0],
    'Option "--once" applies to collector only: start messages in another process',
  );
});

Deno.test("the reader next to another role: exit 2", async () => {
  const child = startMain(["reader", "AA:BB:CC:DD:EE:FF", "messages"]);
  assert.equal(await child.exited(), 2);
  assert.equal(
    child.stderr[0],
    'Role "reader" runs alone (its exit code is its verdict): start the other roles in another process',
  );
});

Deno.test("a host that cannot be bound: exit 1 naming the setting", async () => {
  const child = startMain(["data-api"], {
    env: {
      DATA_API_TOKEN: "t0ken",
      DATA_API_HOST: "192.0.2.1", // TEST-NET-1: never an address of this machine
      DATA_API_PORT: String(freePort()),
    },
  });
  assert.equal(await child.exited(), 1);
  assert.match(
    child.stderr.join("\n"),
    /\[ERROR\] Cannot start data-api: cannot listen on 192\.0\.2\.1:\d+: .*: check DATA_API_HOST \(an address of this machine, or 0\.0\.0\.0\)/,
  );
});

Deno.test("a port in use: exit 1 with a line naming the address and the setting", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = taken.addr as Deno.NetAddr;
  try {
    const child = startMain(["data-api"], {
      env: {
        DATA_API_TOKEN: "t0ken",
        DATA_API_HOST: "127.0.0.1",
        DATA_API_PORT: String(port),
      },
    });
    assert.equal(await child.exited(), 1);
    assert.match(
      child.stderr.join("\n"),
      new RegExp(
        `\\[ERROR\\] Cannot start data-api: cannot listen on 127\\.0\\.0\\.1:${port}: .*: stop what uses it or set DATA_API_PORT to a free port`,
      ),
    );
  } finally {
    taken.close();
  }
});

Deno.test(".env is found walking up, the environment wins, --env-file replaces it", async () => {
  const root = await Deno.makeTempDir({ prefix: "homewire-dotenv-" });
  const cwd = join(root, "deep", "er");
  await Deno.mkdir(cwd, { recursive: true });
  await Deno.writeTextFile(join(root, ".env"), "MESSAGES_PORT=not-a-port\n");

  const fromFile = startMain(["messages"], { cwd });
  assert.equal(await fromFile.exited(), 2);
  assert.match(
    fromFile.stderr.join("\n"),
    /Invalid MESSAGES_PORT "not-a-port"/,
  );

  const port = freePort();
  const envWins = startMain(["messages"], {
    cwd,
    env: { MESSAGES_PORT: String(port), MESSAGES_DB: ":memory:" },
  });
  await waitForHttp(`http://127.0.0.1:${port}/healthz`);
  assert.equal(await envWins.stop(), 0);

  const custom = join(root, "custom.env");
  await Deno.writeTextFile(custom, "LOG_LEVEL=LOUD\n");
  const named = startMain(["messages", "--env-file", custom], { cwd });
  assert.equal(await named.exited(), 2);
  const errors = named.stderr.join("\n");
  assert.match(errors, /Invalid LOG_LEVEL "LOUD"/);
  assert.doesNotMatch(errors, /MESSAGES_PORT/);

  const missing = startMain(
    ["messages", "--env-file", join(root, "nope.env")],
    { cwd },
  );
  assert.equal(await missing.exited(), 2);
  assert.match(missing.stderr.join("\n"), /Cannot read env file ".*nope\.env"/);
  await Deno.remove(root, { recursive: true });
});

Deno.test("a role logs in the product's format and stops on SIGTERM and SIGINT with exit 0", async () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    const port = freePort();
    const child = startMain(["messages"], {
      env: {
        MESSAGES_PORT: String(port),
        MESSAGES_HOST: "127.0.0.1",
        MESSAGES_DB: ":memory:",
      },
    });
    const line = await child.waitFor(/listening on/);
    assert.match(line, LOG_LINE);
    assert.match(
      line,
      new RegExp(
        `\\[INFO\\] messages listening on http://127\\.0\\.0\\.1:${port}$`,
      ),
    );
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.deepEqual(await health.json(), { status: "ok" });
    assert.equal(await child.stop(signal), 0);
    assert.ok(
      child.stderr.some((l) =>
        l.endsWith(`[INFO] Received ${signal}: stopping`)
      ),
    );
  }
});

Deno.test("LOG_FORMAT=json writes one JSON object per line", async () => {
  const port = freePort();
  const child = startMain(["messages"], {
    env: {
      MESSAGES_PORT: String(port),
      MESSAGES_DB: ":memory:",
      LOG_FORMAT: "json",
    },
  });
  const line = await child.waitFor(/listening on/);
  const record = JSON.parse(line);
  assert.equal(record.level, "INFO");
  assert.match(record.message, /^messages listening on /);
  assert.equal(await child.stop(), 0);
});

Deno.test("the same signal twice at once (deno task and its process group) stops cleanly", async () => {
  const main = startMain(["messages"], {
    env: {
      MESSAGES_HOST: "127.0.0.1",
      MESSAGES_PORT: "0",
      MESSAGES_DB: ":memory:",
    },
  });
  await main.waitFor(/messages listening on/);
  main.child.kill("SIGTERM");
  main.child.kill("SIGTERM");
  assert.equal(await main.exited(), 0);
  assert.ok(main.stderr.some((line) => /\[INFO\] Stopped$/.test(line)));
});

Deno.test("a signal does not hide that collector --once left points unwritten", async () => {
  const iio = await makeFakeIio();
  try {
    const main = startMain(["collector", "--once"], {
      env: {
        TSDB_HOST: "127.0.0.1",
        TSDB_PORT: String(freePort()), // nothing listens: the write waits to retry
        TSDB_DATABASE: "home",
        PRESSURE_SENSOR: "iio",
        PRESSURE_IIO_ROOT: iio,
      },
    });
    await main.waitFor(/\[WARNING\] Time-series store .* unavailable/);
    assert.equal(await main.stop("SIGTERM"), 1);
    assert.ok(
      main.stderr.some((line) => /\[ERROR\] 1 point not written/.test(line)),
      main.stderr.join("\n"),
    );
  } finally {
    await Deno.remove(iio, { recursive: true });
  }
});

Deno.test("a second signal ends the process at once with exit code 1", async () => {
  // An upstream that never responds keeps a proxied request in flight, so the first
  // SIGTERM waits for it (up to 10 s).
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of silent) held.push(conn);
  })().catch(() => {});
  const main = startMain(["proxy"], {
    env: {
      PROXY_HOST: "127.0.0.1",
      PROXY_PORT: "0",
      PROXY_ROUTES: `silent=http://127.0.0.1:${
        (silent.addr as Deno.NetAddr).port
      }`,
    },
  });
  try {
    const line = await main.waitFor(/proxy listening on http:\/\/\S+/);
    const url = /http:\/\/\S+/.exec(line)![0];
    const pending = fetch(`${url}/silent/x`).then((r) => r.body?.cancel())
      .catch(() => {});
    while (held.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    main.child.kill("SIGTERM");
    await main.waitFor(/Received SIGTERM: stopping/);
    // Within a second it would count as the same request delivered twice.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // Exit code 1, not the 0 of a stop that waited for the request.
    assert.equal(await main.stop("SIGINT"), 1);
    assert.match(
      main.stderr.join("\n"),
      /\[WARNING\] Received SIGINT again: exiting now/,
    );
    await pending;
  } finally {
    await main.stop();
    silent.close();
    for (const conn of held) conn.close();
    await accepting;
  }
});

Deno.test("a failure that escapes every handler ends the process with a log line", async () => {
  // Out of file descriptors, Deno's server loop fails outside any handler.
  const port = freePort();
  const root = new URL("..", import.meta.url).pathname;
  const child = new Deno.Command("bash", {
    args: [
      "-c",
      `ulimit -n 80; exec "${Deno.execPath()}" run -A --config="${root}deno.json" "${root}main.ts" data-api`,
    ],
    // Away from the project folder, so a developer's .env there plays no part.
    cwd: Deno.makeTempDirSync({ prefix: "homewire-test-" }),
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "",
      DATA_API_TOKEN: "t0k3n",
      DATA_API_HOST: "127.0.0.1",
      DATA_API_PORT: String(port),
    },
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const conns: Deno.Conn[] = [];
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`);
    for (let i = 0; i < 200; i++) {
      try {
        conns.push(await Deno.connect({ hostname: "127.0.0.1", port }));
      } catch {
        break; // the process is gone
      }
    }
    const { code } = await child.status;
    const stderr = await new Response(child.stderr).text();
    assert.equal(code, 1);
    assert.match(
      stderr,
      /\d\d:\d\d:\d\d \[ERROR\] Unexpected failure: .*Too many open files.*; exiting/,
    );
    assert.doesNotMatch(stderr, /Uncaught/);
  } finally {
    for (const conn of conns) conn.close();
    try {
      child.kill();
    } catch {
      // already ended
    }
  }
});
