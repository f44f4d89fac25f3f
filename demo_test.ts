import assert from "node:assert/strict";
import { demoBanner, demoEnv } from "./demo.ts";

Deno.test("demoEnv() generates a token and points the table at the local data API", () => {
  const { env, generatedToken } = demoEnv({ DATA_API_PORT: "9003" });
  assert.match(generatedToken ?? "", /^[0-9a-f]{48}$/);
  assert.equal(env.DATA_API_TOKEN, generatedToken);
  assert.equal(env.API_URL, "http://127.0.0.1:9003/data");
  assert.equal(env.API_KEY, generatedToken);
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
    assert.equal(demoEnv({ DATA_API_HOST: host }).env.API_URL, url, host);
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
