/**
 * A short seeded randomized run of odd paths, methods and bodies against the
 * `messages` role through `main.ts`, sent as raw HTTP/1.1 so paths reach the server
 * unnormalised. The server must never respond 5xx nor die.
 */
import assert from "node:assert/strict";
import { startMain } from "./_test_helpers.ts";

const PATH = "/api/message/resource";
const COUNT = 400;
const SEED = Number(Deno.env.get("MESSAGES_FUZZ_SEED") ?? 20261121);

/** mulberry32: a small seeded generator, so a failing run can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generators(next: () => number) {
  const pick = <T>(items: readonly T[]): T =>
    items[Math.floor(next() * items.length)]!;
  const int = (max: number) => Math.floor(next() * max);
  const ascii = (length: number) =>
    Array.from({ length }, () => String.fromCharCode(33 + int(94))).join("");
  const json = (depth: number): unknown => {
    switch (depth > 3 ? int(5) : int(7)) {
      case 0:
        return null;
      case 1:
        return next() < 0.5;
      case 2:
        return pick([0, -1, 1.5, 1e308, 2 ** 53 + 1]);
      case 3:
        return pick(["", " ", "Ada", "\u0000", "日本", "😀", ascii(int(40))]);
      case 4:
        return pick(["x", "\ud800", "a".repeat(int(2000))]);
      case 5:
        return Array.from({ length: int(4) }, () => json(depth + 1));
      default:
        return Object.fromEntries(
          Array.from({ length: int(4) }, () => [
            pick(["author", "message", "id", "__proto__", ascii(5)]),
            json(depth + 1),
          ]),
        );
    }
  };
  // List queries: known parameters with odd values, unknown ones, escapes.
  const query = () =>
    Array.from({ length: 1 + int(4) }, () => {
      const name = pick([
        "_page",
        "_limit",
        "_per_page",
        "_start",
        "_end",
        "_sort",
        "_order",
        "id",
        "author",
        "message",
        "author_like",
        "message_like",
        "author_ne",
        "id_ne",
        "id_gte",
        "id_lte",
        "q",
        ascii(1 + int(6)),
      ]);
      const value = pick([
        "1",
        "0",
        "-1",
        "1000",
        "1001",
        "9".repeat(1 + int(25)),
        "1e3",
        "abc",
        "-id,author",
        "ASC,desc",
        "%",
        "%00",
        "%E6%97%A5",
        "%ED%A0%80",
        "",
        encodeURIComponent(ascii(int(30))),
      ]);
      return `${name}=${value}`;
    }).join("&");
  const path = () =>
    next() < 0.3 ? PATH : pick([
      `${PATH}?${query()}`,
      `${PATH}?${query()}`,
      PATH + pick(["", "/", "//", "/.", "/..", "/../healthz", "/%2e%2e"]),
      `${PATH}/${pick(["1", "2", "3", "0", "-1", "01", "1.5", "1e3"])}`,
      `${PATH}/${pick(["1", "2"])}${pick(["/", "/x", "?a=1", "#f", ";p"])}`,
      `${PATH}/${"9".repeat(1 + int(30))}`,
      `${PATH}/${encodeURIComponent(ascii(1 + int(12)))}`,
      `${PATH}/%${ascii(2)}`,
      `${PATH}/%00`,
      pick(["/", "/api", "/api/message", "/healthz", "/HEALTHZ", "*"]),
      `/${ascii(int(30)).replaceAll("#", "")}`,
    ]);
  const valid = () =>
    JSON.stringify({ author: "Ada", message: ascii(1 + int(50)) });
  const body = (): string =>
    next() < 0.3 ? valid() : pick([
      () => "",
      () => JSON.stringify(json(0)),
      () => JSON.stringify({ author: json(2), message: json(2) }),
      () => ascii(int(200)),
      () => "[".repeat(20_000) + "]".repeat(20_000),
      () => '{"author":"a","message":"' + "x".repeat(70_000) + '"}',
      () => '{"author":"a","message":"b"'.slice(0, int(27)),
    ])();
  const method = () =>
    pick(["GET", "POST", "POST", "DELETE", "PUT", "PATCH", "HEAD", "OPTIONS"]);
  const contentType = () =>
    pick(["application/json", "text/plain", "", "multipart/form-data"]);
  return { path, body, method, contentType };
}

/** Sends one raw HTTP/1.1 request and returns the status code of the response. */
async function rawRequest(
  port: number,
  head: string,
  body: Uint8Array,
): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const timer = setTimeout(() => conn.close(), 10_000);
  try {
    const bytes = new Uint8Array([...new TextEncoder().encode(head), ...body]);
    try {
      for (let sent = 0; sent < bytes.length;) {
        sent += await conn.write(bytes.subarray(sent));
      }
    } catch (error) {
      if (!isReset(error)) throw error;
    }
    const chunks: Uint8Array[] = [];
    try {
      for await (const chunk of conn.readable) chunks.push(chunk);
    } catch (error) {
      // A server responding early (413) may reset the connection after its reply.
      if (!isReset(error)) throw error;
    }
    const reply = new TextDecoder().decode(
      chunks.length ? chunks[0]!.subarray(0, 40) : new Uint8Array(),
    );
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(reply)?.[1];
    if (!status) throw new Error(`No HTTP status in reply "${reply}"`);
    return Number(status);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test(`messages role survives ${COUNT} random requests (seed ${SEED})`, async () => {
  const main = startMain(["messages"], {
    env: {
      MESSAGES_HOST: "127.0.0.1",
      MESSAGES_PORT: "0",
      MESSAGES_DB: ":memory:",
    },
  });
  const line = await main.waitFor(/messages listening on http:\/\/\S+/);
  const url = /http:\/\/\S+/.exec(line)![0];
  const port = Number(new URL(url).port);
  const gen = generators(random(SEED));
  const seen = new Map<number, number>();
  try {
    for (let i = 0; i < COUNT; i++) {
      const method = gen.method();
      const target = gen.path();
      const body = new TextEncoder().encode(
        ["GET", "HEAD"].includes(method) ? "" : gen.body(),
      );
      const type = gen.contentType();
      const head = `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        (type ? `Content-Type: ${type}\r\n` : "") +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
      const status = await rawRequest(port, head, body);
      seen.set(status, (seen.get(status) ?? 0) + 1);
      assert.ok(status < 500, `#${i} ${method} ${target} responded ${status}`);
    }
    const health = await fetch(`${url}/healthz`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
    const records = await (await fetch(`${url}${PATH}`)).json();
    for (const record of records) {
      assert.ok(Number.isSafeInteger(record.id) && record.id > 0);
      assert.equal(typeof record.author, "string");
      assert.equal(typeof record.message, "string");
    }
    // The run exercised the contract broadly, not only one kind of response.
    for (const status of [200, 201, 400, 404, 405, 413]) {
      assert.ok(seen.has(status), `no ${status} in ${[...seen.keys()]}`);
    }
  } finally {
    assert.equal(await main.stop("SIGTERM"), 0);
  }
  assert.deepEqual(main.stderr.filter((l) => /\[ERROR\]/.test(l)), []);
});

function isReset(error: unknown): boolean {
  return error instanceof Deno.errors.ConnectionReset ||
    error instanceof Deno.errors.BrokenPipe;
}
