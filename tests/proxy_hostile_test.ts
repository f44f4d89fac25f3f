/**
 * Hostile paths sent as raw request lines over TCP (`fetch` would normalise them
 * before sending): none may reach anything outside the registered base URL.
 */
import assert from "node:assert/strict";
import { createMemoryLog } from "../lib/_test_memory_log.ts";
import { parseRoutes } from "../services/proxy/routes.ts";
import {
  rawRequest,
  serveTestProxy,
  startEchoUpstream,
} from "../services/proxy/_test_helpers.ts";

const HOSTILE: [target: string, status: 400 | 404][] = [
  ["/api/../secret", 400],
  ["/api/../../secret", 400],
  ["/api/a/../../secret", 400],
  ["/api/./../secret", 400],
  ["/api/..", 400],
  ["/api/%2e%2e/secret", 400],
  ["/api/%2E%2E/secret", 400],
  ["/api/.%2e/secret", 400],
  ["/api/%2e./secret", 400],
  ["/api/%252e%252e/secret", 400],
  ["/api/..;/secret", 400],
  ["/api/..%2fsecret", 400],
  ["/api/..%2Fsecret", 400],
  ["/api%2f..%2fsecret", 400],
  ["/api/%2f%2f127.0.0.1:1/x", 400],
  ["/api/..%5csecret", 400],
  ["/api\\..\\secret", 400],
  ["/api/..\\secret", 400],
  ["/api/\\\\127.0.0.1:1/x", 400],
  ["/api//127.0.0.1:1/x", 400],
  ["/api///secret", 400],
  ["/api/@127.0.0.1:1/x", 400],
  ["/api/%40127.0.0.1:1/x", 400],
  ["/api/user:pass@127.0.0.1:1/x", 400],
  ["/api/%zz", 400],
  ["/root/..", 400],
  ["/root//127.0.0.1:1/x", 400],
  ["/root/@127.0.0.1:1", 400],
  ["/root/%2e%2e/secret", 400],
  ["/api@127.0.0.1:1/x", 404],
  ["/api.127.0.0.1/x", 404],
  ["/apix/../api/x", 404],
  ["/../api/x", 404],
  ["/%2e%2e/api/x", 404],
  ["//api/x", 404],
  ["/secret", 404],
];

async function withProxy(
  fn: (
    port: number,
    echo: ReturnType<typeof startEchoUpstream>,
  ) => Promise<void>,
) {
  const echo = startEchoUpstream();
  const log = createMemoryLog();
  const server = serveTestProxy({
    routes: parseRoutes(`api=${echo.url}/base,root=${echo.url}`),
    log,
  });
  try {
    await fn(server.port, echo);
    assert.deepEqual(log.at("ERROR"), []);
  } finally {
    await server.stop();
    await echo.stop();
  }
}

Deno.test("proxy refuses hostile raw paths without any upstream request", async (t) => {
  await withProxy(async (port, echo) => {
    for (const [target, status] of HOSTILE) {
      await t.step(`${target} -> ${status}`, async () => {
        const response = await rawRequest(port, target);
        assert.equal(response.status, status);
        if (status === 404) assert.equal(response.body, "");
        else assert.match(JSON.parse(response.body).message, /^Invalid path "/);
      });
    }
    for (const method of ["POST", "PUT", "DELETE"]) {
      await t.step(`${method} /api/../secret -> 400`, async () => {
        const response = await rawRequest(port, "/api/../secret", {
          method,
          body: "x",
        });
        assert.equal(response.status, 400);
      });
    }
    assert.deepEqual(echo.seen, []);
  });
});

Deno.test("proxy relays well-formed raw paths under the base only", async () => {
  await withProxy(async (port, echo) => {
    const cases: [string, string][] = [
      ["/api/users/7?x=..%2f&y=@z", "/base/users/7?x=..%2f&y=@z"],
      ["/api/.well-known/a...b", "/base/.well-known/a...b"],
      ["/api/a%20b", "/base/a%20b"],
      ["/api", "/base"],
      ["http://127.0.0.1:1/api/absolute", "/base/absolute"],
      ["/root/top", "/top"],
    ];
    for (const [target, expected] of cases) {
      const response = await rawRequest(port, target);
      assert.equal(response.status, 200, target);
      assert.equal(
        JSON.parse(response.body).path + JSON.parse(response.body).query,
        expected,
      );
    }
    assert.deepEqual(echo.seen, cases.map(([, expected]) => expected));
  });
});

Deno.test("proxy responds to unusual methods on raw request lines with empty bodies", async () => {
  await withProxy(async (port, echo) => {
    for (const method of ["TRACE", "CONNECT", "PATCH", "HEAD", "PROPFIND"]) {
      const target = method === "CONNECT" ? "127.0.0.1:1" : "/api/x";
      const response = await rawRequest(port, target, { method });
      assert.equal(response.status, 405, method);
      assert.equal(
        response.headers.get("allow"),
        "GET, POST, PUT, DELETE, OPTIONS",
      );
      assert.equal(response.body, "");
    }
    assert.deepEqual(echo.seen, []);
  });
});
