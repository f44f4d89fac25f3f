import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/log.ts";
import { parseSettings } from "../../lib/settings.ts";
import { startTable, tableArgsToEnv, tableRole, tableSettings } from "./mod.ts";

Deno.test("tableRole takes port, host and open-browser as arguments that win over the env", () => {
  const env = { API_URL: "http://127.0.0.1:1/data", TABLE_PORT: "9000" };
  assert.doesNotThrow(() =>
    tableRole.prepare({
      env,
      args: ["0", "127.0.0.1", "false"],
      flags: new Set(),
    })
  );
  for (const word of ["FALSE", "F", "TRUE", "T", "no"]) {
    assert.doesNotThrow(() =>
      tableRole.prepare({
        env,
        args: ["0", "127.0.0.1", word],
        flags: new Set(),
      })
    );
  }
  assert.throws(
    () => tableRole.prepare({ env, args: ["x"], flags: new Set() }),
    /TABLE_PORT "x"/,
  );
  assert.throws(
    () =>
      tableRole.prepare({
        env,
        args: ["0", "127.0.0.1", "maybe"],
        flags: new Set(),
      }),
    /TABLE_OPEN_BROWSER "maybe"/,
  );
  assert.throws(
    () =>
      tableRole.prepare({
        env,
        args: ["0", "127.0.0.1", "false", "extra"],
        flags: new Set(),
      }),
    /Unexpected argument "extra"/,
  );
  assert.throws(
    () => tableRole.prepare({ env: {}, args: [], flags: new Set() }),
    /Missing API_URL/,
  );
});

Deno.test("tableSettings default to port 3838 on 0.0.0.0 with the browser opened", () => {
  const settings = parseSettings(tableSettings, {
    API_URL: "http://127.0.0.1/data",
  });
  assert.equal(settings.TABLE_PORT, 3838);
  assert.equal(settings.TABLE_HOST, "0.0.0.0");
  assert.equal(settings.TABLE_OPEN_BROWSER, true);
  assert.equal(settings.API_KEY, undefined);
});

Deno.test("startTable() opens the page's URL only when asked", async () => {
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

Deno.test("tableArgsToEnv() maps the arguments, R-style T and F included", () => {
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
