import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { parseSettings } from "../../lib/settings.ts";
import { startTable, tableArgsToEnv, tableRole, tableSettings } from "./mod.ts";

Deno.test("tableRole.prepare() lets the arguments win over the environment", async () => {
  const env = {
    API_URL: "http://127.0.0.1:1/data",
    TABLE_PORT: "1",
    TABLE_HOST: "192.0.2.1",
    TABLE_OPEN_BROWSER: "true",
  };
  const start = tableRole.prepare({
    env,
    args: ["0", "127.0.0.1", "F"],
    flags: new Set(),
  });
  const log = createMemoryLog();
  const role = await start(log);
  await role.stop();
  assert.match(
    log.at("INFO")[0]!,
    /^table listening on http:\/\/127\.0\.0\.1:\d+$/,
  );
  assert.doesNotMatch(log.at("INFO")[0]!, /:1$/);
  assert.equal(log.at("WARNING").length, 0, "no browser opened");
});

Deno.test("tableRole.prepare() reports bad arguments and a missing API_URL", () => {
  const env = { API_URL: "http://127.0.0.1:1/data" };
  const prepare = (args: string[], e: Record<string, string> = env) =>
    tableRole.prepare({ env: e, args, flags: new Set() });
  for (const word of ["FALSE", "F", "TRUE", "T", "no"]) {
    assert.doesNotThrow(() => prepare(["0", "127.0.0.1", word]), word);
  }
  assert.throws(() => prepare(["x"]), /Invalid TABLE_PORT "x"/);
  assert.throws(
    () => prepare(["0", "127.0.0.1", "maybe"]),
    /Invalid TABLE_OPEN_BROWSER "maybe"/,
  );
  assert.throws(
    () => prepare(["0", "127.0.0.1", "false", "extra"]),
    /Unexpected argument "extra"/,
  );
  assert.throws(() => prepare([], {}), /Missing API_URL/);
});

Deno.test("tableSettings default to port 3838 on 0.0.0.0 with the browser opened when unset", () => {
  const settings = parseSettings(tableSettings, {
    API_URL: "http://127.0.0.1/data",
  });
  assert.equal(settings.TABLE_PORT, 3838);
  assert.equal(settings.TABLE_HOST, "0.0.0.0");
  assert.equal(settings.TABLE_OPEN_BROWSER, true);
  assert.equal(settings.API_KEY, undefined);
  assert.equal(settings.TABLE_REFRESH_MS, 0, "auto-refresh off");
});

Deno.test("tableSettings read TABLE_REFRESH_MS as 0 (off) or a duration of at least 1000 ms", () => {
  const read = (value: string) =>
    parseSettings(tableSettings, {
      API_URL: "http://127.0.0.1/data",
      TABLE_REFRESH_MS: value,
    }).TABLE_REFRESH_MS;
  assert.equal(read("0"), 0);
  assert.equal(read("1000"), 1000);
  assert.equal(read("30s"), 30_000);
  assert.equal(read("5m"), 300_000);
  for (const bad of ["999", "-1", "soon", "1e3"]) {
    assert.throws(
      () => read(bad),
      new RegExp(`Invalid TABLE_REFRESH_MS "${bad}"`),
      bad,
    );
  }
});

Deno.test("startTable() opens the page's URL only when TABLE_OPEN_BROWSER is true", async () => {
  for (const open of [true, false]) {
    const opened: string[] = [];
    const settings = parseSettings(tableSettings, {
      API_URL: "http://127.0.0.1:1/data",
      TABLE_HOST: "127.0.0.1",
      TABLE_PORT: "0",
      TABLE_OPEN_BROWSER: String(open),
    });
    const log = createMemoryLog();
    const role = await startTable(settings, {
      log,
      openBrowser: (url) => {
        opened.push(url);
        return Promise.resolve();
      },
    });
    await role.stop();
    const listening =
      /listening on (http:\/\/\S+)/.exec(log.at("INFO")[0]!)![1];
    assert.deepEqual(opened, open ? [`${listening}/`] : []);
  }
});

Deno.test("tableArgsToEnv() maps the arguments to variables, R-style T and F included", () => {
  assert.deepEqual(tableArgsToEnv([]), {});
  assert.deepEqual(tableArgsToEnv(["3839"]), { TABLE_PORT: "3839" });
  assert.deepEqual(tableArgsToEnv(["1", "::", "F"]), {
    TABLE_PORT: "1",
    TABLE_HOST: "::",
    TABLE_OPEN_BROWSER: "false",
  });
  assert.equal(tableArgsToEnv(["1", "h", "t"]).TABLE_OPEN_BROWSER, "true");
  assert.equal(tableArgsToEnv(["1", "h", "FALSE"]).TABLE_OPEN_BROWSER, "FALSE");
});
