/**
 * A short seeded randomized run of odd paths, methods and bodies against the proxy
 * role in its own process: it never returns 500, never dies, never calls outside
 * the registered base.
 */
import assert from "node:assert/strict";
import {
  rawRequest,
  seededRandom,
  startEchoUpstream,
} from "../services/proxy/_test_helpers.ts";
import { freePort, startMain } from "./_test_helpers.ts";

const SEED = 20261121;
const REQUESTS = 400;
const PIECES = [
  "api",
  "api",
  "apix",
  "healthz",
  "root",
  "x",
  "a.b",
  "..",
  ".",
  "...",
  "%2e",
  "%2E",
  "%2e%2e",
  "%252e",
  "%2f",
  "%2F",
  "%5c",
  "\\",
  "@",
  "%40",
  "%",
  "%z",
  "%zz",
  "%C3%A9",
  "é",
  "~",
  ";",
  ":",
  "?",
  "??",
  "#",
  "&",
  "=",
  "/",
  "//",
  "%00",
  "%0d%0a",
  "%20",
  "+",
  "$",
  "!",
  "'",
  "(",
  ")",
  "*",
  ",",
  "[",
  "]",
  "{",
  "}",
  "|",
  "^",
  "`",
  '"',
  "<",
  ">",
];
const METHODS = [
  "GET",
  "GET",
  "POST",
  "PUT",
  "DELETE",
  "OPTIONS",
  "PATCH",
  "HEAD",
];

Deno.test("proxy survives a seeded randomized run without a 500", async () => {
  const random = seededRandom(SEED);
  const pick = <T>(items: readonly T[]): T =>
    items[Math.floor(random() * items.length)]!;
  const echo = startEchoUpstream();
  const port = freePort();
  const proxy = startMain(["proxy"], {
    env: {
      PROXY_ROUTES: `api=${echo.url}/base,root=${echo.url}/base/root`,
      PROXY_HOST: "127.0.0.1",
      PROXY_PORT: String(port),
    },
  });
  try {
    await proxy.waitFor(/proxy listening on/);
    const statuses = new Map<number, number>();
    for (let i = 0; i < REQUESTS; i++) {
      const first = random() < 0.8 ? pick(["api", "root"]) : pick(PIECES);
      const rest = Array.from(
        { length: Math.floor(random() * 5) },
        () => pick(PIECES),
      );
      const path = `/${first}/${rest.join(random() < 0.7 ? "/" : "")}`;
      const method = pick(METHODS);
      const body = ["POST", "PUT", "DELETE"].includes(method) && random() < 0.7
        ? Array.from(
          { length: Math.floor(random() * 3000) },
          () => String.fromCharCode(Math.floor(random() * 256)),
        ).join("")
        : undefined;
      const response = await rawRequest(port, path, { method, body });
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      assert.ok(
        [200, 204, 400, 404, 405].includes(response.status),
        `seed ${SEED}, request ${i}: ${method} ${path} returned ${response.status}`,
      );
    }
    // Both relayed and refused requests occurred: the run exercised both sides.
    assert.ok((statuses.get(200) ?? 0) > 10, JSON.stringify([...statuses]));
    assert.ok((statuses.get(400) ?? 0) > 10, JSON.stringify([...statuses]));
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.deepEqual(await health.json(), { status: "ok" });
    assert.ok(echo.seen.length > 0);
    for (const seen of echo.seen) {
      const path = seen.split("?")[0]!;
      assert.ok(path === "/base" || path.startsWith("/base/"), seen);
      assert.ok(!/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(path), seen);
    }
    assert.deepEqual(proxy.stderr.filter((line) => /\[ERROR\]/.test(line)), []);
  } finally {
    assert.equal(await proxy.stop(), 0);
    await echo.stop();
  }
});
