import assert from "node:assert/strict";
import { demoBanner, demoEnv, freePortsOn } from "./demo.ts";

Deno.test("demoEnv() generates a token and points the table at the local data API", () => {
  const { env, generatedToken } = demoEnv({ DATA_API_PORT: "9003" });
  assert.match(generatedToken ?? "", /^[0-9a-f]{48}$/);
  assert.equal(env.DATA_API_TOKEN, generatedToken);
  assert.equal(env.API_URL, "http://127.0.0.1:9003/data");
  assert.equal(env.API_KEY, generatedToken);
  assert.equal(env.MESSAGES_ALLOW_ORIGIN, "http://127.0.0.1:3838");
});

Deno.test("demoEnv() lets the table page's origin use messages, unless set", () => {
  assert.equal(
    demoEnv({ TABLE_HOST: "::1", TABLE_PORT: "9000" }).env
      .MESSAGES_ALLOW_ORIGIN,
    "http://[::1]:9000",
  );
  assert.equal(
    demoEnv({ MESSAGES_ALLOW_ORIGIN: "*" }).env.MESSAGES_ALLOW_ORIGIN,
    "*",
  );
});

Deno.test("demoEnv() keeps what the user set", () => {
  const { env, generatedToken } = demoEnv({
    DATA_API_TOKEN: "mine",
    API_URL: "http://elsewhere/data",
    API_KEY: "theirs",
  });
  assert.equal(generatedToken, undefined);
  assert.equal(env.DATA_API_TOKEN, "mine");
  assert.equal(env.API_URL, "http://elsewhere/data");
  assert.equal(env.API_KEY, "theirs");
});

Deno.test("demoEnv() points the table at the data API's own address", () => {
  const cases: [string | undefined, string][] = [
    [undefined, "http://127.0.0.1:8003/data"],
    ["0.0.0.0", "http://127.0.0.1:8003/data"],
    ["::", "http://127.0.0.1:8003/data"],
    ["127.0.0.2", "http://127.0.0.2:8003/data"],
    ["::1", "http://[::1]:8003/data"],
    ["[::1]", "http://[::1]:8003/data"],
  ];
  for (const [host, url] of cases) {
    assert.equal(
      demoEnv({ DATA_API_HOST: host }).env.API_URL,
      url,
      String(host),
    );
  }
});

Deno.test("demoBanner() names the page, how to stop, and the generated token", () => {
  assert.deepEqual(demoBanner({}, "abc"), [
    "Demo running: open http://127.0.0.1:3838/ (Ctrl-C to stop)",
    "Demo data-API token (generated because DATA_API_TOKEN is unset): abc",
  ]);
  assert.deepEqual(demoBanner({ TABLE_HOST: "::1", TABLE_PORT: "9000" }), [
    "Demo running: open http://[::1]:9000/ (Ctrl-C to stop)",
  ]);
});

Deno.test("demoEnv() replaces ports asked as 0 by free ones, so the table and the banner name them", async (t) => {
  const asked: string[][] = [];
  const freePorts = (hostnames: readonly string[]) => {
    asked.push([...hostnames]);
    return hostnames.map((_, i) => 45100 + i);
  };

  await t.step("both ports of 0, on their own hosts", () => {
    asked.length = 0;
    const { env } = demoEnv({
      DATA_API_PORT: "0",
      DATA_API_HOST: "[::1]",
      TABLE_PORT: " 0 ",
    }, { freePorts });
    assert.deepEqual(asked, [["0.0.0.0", "::1"]]);
    assert.equal(env.TABLE_PORT, "45100");
    assert.equal(env.DATA_API_PORT, "45101");
    assert.equal(env.API_URL, "http://[::1]:45101/data");
    assert.deepEqual(demoBanner(env), [
      "Demo running: open http://127.0.0.1:45100/ (Ctrl-C to stop)",
    ]);
  });

  await t.step("other ports are kept and nothing is reserved", () => {
    asked.length = 0;
    const { env } = demoEnv({ TABLE_PORT: "9000" }, { freePorts });
    assert.deepEqual(asked, []);
    assert.equal(env.TABLE_PORT, "9000");
    assert.equal(env.DATA_API_PORT, undefined);
    assert.equal("DATA_API_PORT" in env, false);
  });

  await t.step("with API_URL set, the data API keeps its 0", () => {
    asked.length = 0;
    const { env } = demoEnv({
      API_URL: "http://elsewhere/data",
      DATA_API_PORT: "0",
      TABLE_PORT: "0",
    }, { freePorts });
    assert.deepEqual(asked, [["0.0.0.0"]]);
    assert.equal(env.DATA_API_PORT, "0");
    assert.equal(env.TABLE_PORT, "45100");
    assert.equal(env.API_URL, "http://elsewhere/data");
  });

  await t.step("a 0 stays when nothing can listen on the host", () => {
    const { env } = demoEnv({ TABLE_PORT: "0", DATA_API_PORT: "0" }, {
      freePorts: (hostnames) => hostnames.map(() => undefined),
    });
    assert.equal(env.TABLE_PORT, "0");
    assert.equal(env.DATA_API_PORT, "0");
  });
});

Deno.test("freePortsOn() returns distinct ports that can be bound, undefined where nothing can listen", () => {
  const [first, second, none] = freePortsOn([
    "127.0.0.1",
    "127.0.0.1",
    "192.0.2.1",
  ]);
  assert.ok(first && second, `${first} ${second}`);
  assert.notEqual(first, second);
  assert.equal(none, undefined);
  for (const port of [first, second]) {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
  }
});
