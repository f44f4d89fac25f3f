/**
 * The pooled client against `npm:undici` (llhttp) as the oracle: for every hostile or
 * unusual response of the corpus, played by the same raw server to both, ours never
 * accepts a response llhttp rejects (but for the 1xx responses RFC 9110 requires a
 * client to read, marked `required`), where both accept, both deliver the same
 * status, headers and body, and ours refuses nothing undici accepts but where RFC
 * 9112 leaves no doubt (marked `stricter`). After each response, a second call on the
 * same client must get the second response (never a byte of the first).
 *
 * The corpus runs a second time through an outbound proxy's `CONNECT` tunnel (a
 * small relaying proxy) to an `https:` server playing the same bytes over TLS, so
 * that the strictness holds through the tunnel (the byte-split variants are
 * played directly only: TLS records cut the bytes their own way).
 */
import assert from "node:assert/strict";
import { Client } from "undici";
import { makeTestTls, type TestTls } from "../../tests/_test_tls.ts";
import {
  type Script,
  type ScriptStep,
  startScriptedServer,
  type TestClient,
  testClient,
} from "./_test_helpers.ts";
import { type ConnectProxy, startConnectProxy } from "./_test_connect_proxy.ts";
import { parseProxyUrl } from "./outbound_proxy.ts";

/** How a client took a response. */
type Outcome =
  | { ok: true; status: number; headers: string; body: string }
  | { ok: false; error: string };

interface Case {
  name: string;
  steps: ScriptStep[];
  /** Close after the steps (a response framed by the end of the connection). */
  close?: boolean;
  method?: "GET" | "HEAD";
  /** Why ours refuses what undici accepts (RFC 9112 leaves no doubt there). */
  stricter?: string;
  /** The upstream goes silent: both clients must time out (after `SILENCE_MS`). */
  silent?: boolean;
  /** Pause before the second call (late bytes must have come and gone). */
  pauseMs?: number;
  /**
   * Why undici's refusal is not followed: a response RFC 9112 or 9110 requires a
   * client to read, refused by undici's own checks rather than llhttp's. Ours must
   * then read it, and deliver `body`.
   */
  required?: { why: string; body: string };
  /**
   * Also play the response split in two writes at every byte boundary (the bytes of
   * `steps`, which must then be one string).
   */
  split?: boolean;
}

/** The wait for a response that never comes (the `silent` cases). */
const SILENCE_MS = 300;
/**
 * The wait for every other response: far beyond what a local response takes, so a busy
 * machine never turns one client's response into the other's time-out.
 */
const TIMEOUT_MS = 5000;
const SECOND = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecond";
/** A response meant for another client, pipelined or late. */
const LEAK = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecret";

/** chunked applied twice leaves the body's end to a guess. */
const CHUNKED_ONCE =
  "RFC 9112 7: a sender must not apply chunked more than once";

/**
 * undici refuses a 100 Continue it did not ask for ("bad response", a check of its
 * own: llhttp parses it), where RFC 9110 15.2 says a client must read 1xx responses it
 * did not expect.
 */
const INTERIM = "RFC 9110 15.2: a client reads 1xx responses it did not expect";

const ok = (headers: string, body = "") =>
  `HTTP/1.1 200 OK\r\n${headers}\r\n${body}`;
const cl = (body: string, extra = "") =>
  ok(`Content-Length: ${body.length}\r\n${extra}`, body);
const chunked = (body: string, extra = "") =>
  ok(`Transfer-Encoding: chunked\r\n${extra}`, body);

const CASES: Case[] = [
  // Well-formed responses: both must deliver them alike.
  { name: "content-length", steps: [cl("hello")], split: true },
  {
    name: "chunked",
    steps: [chunked("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")],
    split: true,
  },
  {
    name: "chunk extensions",
    steps: [chunked('5;a=1;b="x y"\r\nhello\r\n0;z\r\n\r\n')],
    split: true,
  },
  {
    name: "trailers dropped",
    steps: [chunked("5\r\nhello\r\n0\r\nX-Trailer: t\r\nX-Other: u\r\n\r\n")],
    split: true,
  },
  { name: "upper-case hex", steps: [chunked("A\r\n0123456789\r\n0\r\n\r\n")] },
  {
    name: "leading zeros in a chunk size",
    steps: [chunked("0005\r\nhello\r\n0\r\n\r\n")],
  },
  {
    name: "leading zeros in a length",
    steps: [ok("Content-Length: 005\r\n", "hello")],
  },
  {
    name: "blanks around a length",
    steps: [ok("Content-Length:  5 \r\n", "hello")],
  },
  { name: "zero length", steps: [cl("")] },
  {
    name: "until close, Connection: close",
    steps: [ok("Connection: close\r\n", "all of it")],
    close: true,
  },
  {
    name: "until close, no framing",
    steps: [ok("", "all of it")],
    close: true,
  },
  {
    name: "HTTP/1.0 until close",
    steps: ["HTTP/1.0 200 OK\r\n\r\nold body"],
    close: true,
  },
  {
    name: "HTTP/1.0 with a length",
    steps: ["HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"],
  },
  {
    name: "no reason phrase",
    steps: ["HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok"],
  },
  {
    name: "empty reason phrase",
    steps: ["HTTP/1.1 200 \r\nContent-Length: 2\r\n\r\nok"],
  },
  {
    name: "other status",
    steps: ["HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno"],
  },
  {
    name: "100 Continue first",
    steps: ["HTTP/1.1 100 Continue\r\n\r\n", cl("yes")],
    required: { why: INTERIM, body: "yes" },
  },
  {
    name: "103 Early Hints first",
    steps: ["HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n" + cl("yes")],
    split: true,
  },
  {
    name: "two 1xx first",
    steps: [
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 102 Processing\r\n\r\n" +
      cl("yes"),
    ],
    required: { why: INTERIM, body: "yes" },
  },
  { name: "204", steps: ["HTTP/1.1 204 No Content\r\n\r\n"] },
  {
    name: "304 with a length",
    steps: ["HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n"],
  },
  {
    name: "204 with a body",
    steps: ["HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello"],
  },
  {
    name: "304 with a body",
    steps: ["HTTP/1.1 304 Not Modified\r\n\r\nhello"],
  },
  {
    name: "HEAD with a length",
    method: "HEAD",
    steps: [ok("Content-Length: 5\r\n")],
  },
  {
    name: "HEAD chunked",
    method: "HEAD",
    steps: [ok("Transfer-Encoding: chunked\r\n")],
  },
  {
    name: "HEAD responded with a body",
    method: "HEAD",
    steps: [cl("hello")],
  },
  {
    name: "repeated headers",
    steps: [
      cl("x", "Set-Cookie: a=1\r\nSet-Cookie: b=2\r\nX-Dup: 1\r\nX-Dup: 2\r\n"),
    ],
  },
  { name: "obs-text in a value", steps: [cl("x", "X-Name: caf\xe9\r\n")] },
  { name: "tab in a value", steps: [cl("x", "X-Tab: a\tb\r\n")] },
  { name: "empty value", steps: [cl("x", "X-Empty:\r\n")] },
  {
    name: "large head (40 KB)",
    steps: [cl("x", `X-Big: ${"a".repeat(40_000)}\r\n`)],
  },
  {
    name: "transfer-encoding with blanks",
    steps: [ok("Transfer-Encoding:  chunked \r\n", "2\r\nok\r\n0\r\n\r\n")],
  },
  {
    name: "transfer-encoding in upper case",
    steps: [ok("Transfer-Encoding: CHUNKED\r\n", "2\r\nok\r\n0\r\n\r\n")],
  },

  // Content-Length that is not 1*DIGIT, or several of them.
  {
    name: "empty length, body a moment later",
    steps: [ok("Content-Length: \r\n"), 5, "hello" + LEAK],
    pauseMs: 0,
  },
  {
    name: "length +5",
    steps: [ok("Content-Length: +5\r\n", "hello")],
    split: true,
  },
  { name: "length -5", steps: [ok("Content-Length: -5\r\n", "hello")] },
  { name: "length 0x5", steps: [ok("Content-Length: 0x5\r\n", "hello")] },
  { name: "length 5.0", steps: [ok("Content-Length: 5.0\r\n", "hello")] },
  { name: "length 5e0", steps: [ok("Content-Length: 5e0\r\n", "hello")] },
  { name: "length 5 5", steps: [ok("Content-Length: 5 5\r\n", "hello")] },
  {
    name: "length list 5, 5",
    steps: [ok("Content-Length: 5, 5\r\n", "hello")],
  },
  {
    name: "length list 2, 5",
    steps: [ok("Content-Length: 2, 5\r\n", "hello")],
  },
  {
    name: "two equal lengths",
    steps: [ok("Content-Length: 5\r\nContent-Length: 5\r\n", "hello")],
  },
  {
    name: "two different lengths",
    steps: [ok("Content-Length: 2\r\nContent-Length: 5\r\n", "hello")],
  },
  {
    name: "length overflow",
    steps: [ok("Content-Length: 99999999999999999999999\r\n", "hello")],
  },
  { name: "length abc", steps: [ok("Content-Length: abc\r\n", "hello")] },
  {
    name: "length and chunked",
    steps: [
      ok(
        "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n",
        "5\r\nhello\r\n0\r\n\r\n",
      ),
    ],
    split: true,
  },
  {
    name: "chunked and length",
    steps: [
      ok(
        "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
        "5\r\nhello\r\n0\r\n\r\n",
      ),
    ],
  },

  // Transfer-Encoding other than a final chunked.
  {
    name: "chunked twice in one line",
    steps: [
      ok("Transfer-Encoding: chunked, chunked\r\n", "5\r\nhello\r\n0\r\n\r\n"),
    ],
    stricter: CHUNKED_ONCE,
  },
  {
    name: "chunked on two lines",
    steps: [
      ok(
        "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
        "5\r\nhello\r\n0\r\n\r\n",
      ),
    ],
    stricter: CHUNKED_ONCE,
  },
  {
    name: "chunked not last",
    steps: [
      ok("Transfer-Encoding: chunked, identity\r\n", "5\r\nhello\r\n0\r\n\r\n"),
    ],
    close: true,
  },
  {
    name: "only identity",
    steps: [ok("Transfer-Encoding: identity\r\n", "hello")],
    close: true,
  },
  {
    name: "gzip then chunked on two lines",
    steps: [
      ok(
        "Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n",
        "5\r\nhello\r\n0\r\n\r\n",
      ),
    ],
  },
  {
    name: "xchunked",
    steps: [ok("Transfer-Encoding: xchunked\r\n", "5\r\nhello\r\n0\r\n\r\n")],
    close: true,
  },
  {
    name: "chunked with a parameter",
    steps: [
      ok("Transfer-Encoding: chunked;q=1\r\n", "5\r\nhello\r\n0\r\n\r\n"),
    ],
    close: true,
  },

  // Chunks.
  {
    name: "chunk size with junk",
    steps: [chunked("5 junk\r\nhello\r\n0\r\n\r\n")],
    split: true,
  },
  {
    name: "chunk size with a blank before ;",
    steps: [chunked("5 ;a=1\r\nhello\r\n0\r\n\r\n")],
  },
  { name: "chunk size 0x5", steps: [chunked("0x5\r\nhello\r\n0\r\n\r\n")] },
  { name: "chunk size +5", steps: [chunked("+5\r\nhello\r\n0\r\n\r\n")] },
  { name: "chunk size -5", steps: [chunked("-5\r\nhello\r\n0\r\n\r\n")] },
  { name: "empty chunk size", steps: [chunked("\r\nhello\r\n0\r\n\r\n")] },
  { name: "chunk size g", steps: [chunked("g\r\nhello\r\n0\r\n\r\n")] },
  {
    name: "chunk size overflow",
    steps: [chunked("fffffffffffffffffffff\r\nhello\r\n0\r\n\r\n")],
  },
  {
    name: "chunk longer than its size",
    steps: [chunked("5\r\nhello!!\r\n0\r\n\r\n")],
  },
  {
    name: "chunk shorter than its size",
    steps: [chunked("7\r\nhello\r\n0\r\n\r\n")],
  },
  {
    name: "bare LF after chunk data",
    steps: [chunked("5\r\nhello\n0\r\n\r\n")],
  },
  {
    name: "bare LF after a chunk size",
    steps: [chunked("5\nhello\r\n0\r\n\r\n")],
  },
  {
    name: "bare LF ending trailers",
    steps: [chunked("5\r\nhello\r\n0\r\n\n")],
  },
  {
    name: "trailer without a colon",
    steps: [chunked("5\r\nhello\r\n0\r\nnot a trailer\r\n\r\n")],
  },
  {
    name: "folded trailer",
    steps: [chunked("5\r\nhello\r\n0\r\nX-T: 1\r\n folded\r\n\r\n")],
  },
  {
    name: "no last chunk, then close",
    steps: [chunked("5\r\nhello\r\n")],
    close: true,
  },

  // Status lines.
  {
    name: "four-digit status",
    steps: ["HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n"],
  },
  {
    name: "two-digit status",
    steps: ["HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n"],
  },
  {
    name: "HTTP/2.0",
    steps: ["HTTP/2.0 200 OK\r\nContent-Length: 0\r\n\r\n"],
    stricter: "RFC 9112 2.3: an HTTP/1.1 response has major version 1",
  },
  { name: "HTTP/1.2", steps: ["HTTP/1.2 200 OK\r\nContent-Length: 0\r\n\r\n"] },
  {
    name: "lower-case http",
    steps: ["http/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"],
  },
  {
    name: "two blanks before the status",
    steps: ["HTTP/1.1  200 OK\r\nContent-Length: 0\r\n\r\n"],
  },
  {
    name: "ICY",
    steps: ["ICY 200 OK\r\nContent-Length: 0\r\n\r\n"],
    close: true,
  },
  {
    name: "NUL in the reason",
    steps: ["HTTP/1.1 200 O\0K\r\nContent-Length: 0\r\n\r\n"],
    stricter: "RFC 9112 4: a reason phrase is HTAB, SP, VCHAR or obs-text",
  },
  {
    name: "blank line before the status",
    steps: ["\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"],
    stricter:
      "RFC 9112 2.2 lets a server skip blank lines before a request; before a response they would mean the previous one did not end where its framing said",
  },
  {
    name: "junk before the status",
    steps: ["junk\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"],
  },
  {
    name: "101 unasked",
    steps: [
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: x\r\nConnection: upgrade\r\n\r\nraw",
    ],
  },

  // Header lines.
  { name: "obs-fold", steps: [cl("x", "X-A: 1\r\n  more\r\n")], split: true },
  { name: "blank before the colon", steps: [cl("x", "X-A : 1\r\n")] },
  { name: "no colon", steps: [cl("x", "not a header\r\n")] },
  { name: "blank inside a name", steps: [cl("x", "X A: 1\r\n")] },
  { name: "empty name", steps: [cl("x", ": 1\r\n")] },
  { name: "NUL in a value", steps: [cl("x", "X-A: a\0b\r\n")] },
  { name: "CR in a value", steps: [cl("x", "X-A: a\rb\r\n")] },
  {
    name: "bare LF after the status",
    steps: ["HTTP/1.1 200 OK\nContent-Length: 2\r\n\r\nok"],
  },
  {
    name: "bare LF ending a header",
    steps: ["HTTP/1.1 200 OK\r\nContent-Length: 2\n\r\nok"],
    split: true,
  },
  {
    name: "bare LF ending the head",
    steps: ["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\nok"],
  },
  {
    name: "only bare LFs",
    steps: ["HTTP/1.1 200 OK\nContent-Length: 2\n\nok"],
  },
  {
    name: "huge head (100 KB)",
    steps: [cl("x", `X-Big: ${"a".repeat(100_000)}\r\n`)],
  },
  {
    name: "many headers (2000)",
    steps: [cl("x", "X-H: 1\r\n".repeat(2000))],
  },

  // Bytes not asked for, early closes, silence.
  {
    name: "pipelined extra response",
    steps: [cl("hello") + LEAK],
    split: true,
  },
  { name: "junk after the response", steps: [cl("hello") + "junk"] },
  {
    name: "extra response after 1 ms",
    steps: [cl("hello"), 1, LEAK],
    pauseMs: 150,
  },
  {
    name: "extra response after 50 ms",
    steps: [cl("hello"), 50, LEAK],
    pauseMs: 200,
  },
  {
    name: "extra response after a chunked one, 1 ms",
    steps: [chunked("5\r\nhello\r\n0\r\n\r\n"), 1, LEAK],
    pauseMs: 150,
  },
  {
    name: "body of a 204 after 50 ms",
    steps: ["HTTP/1.1 204 No Content\r\n\r\n", 50, "hello" + LEAK],
    pauseMs: 200,
  },
  {
    name: "close mid-head",
    steps: ["HTTP/1.1 200 OK\r\nContent-Le"],
    close: true,
  },
  { name: "close before any byte", steps: [], close: true },
  {
    name: "close mid-body",
    steps: [ok("Content-Length: 10\r\n", "hello")],
    close: true,
  },
  {
    name: "head, then silence",
    steps: [ok("Content-Length: 10\r\n", "hello")],
    silent: true,
  },
  {
    name: "half a status line, then silence",
    steps: ["HTTP/1.1 20"],
    silent: true,
  },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `script`'s response through our client: `lean` reads it with `exchange`. */
async function ours(
  url: string,
  method: string,
  lean: boolean,
  client: TestClient,
  timeoutMs = TIMEOUT_MS,
): Promise<Outcome> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    if (lean) {
      const res = await client.exchange(url, { method, signal });
      return {
        ok: true,
        status: res.status,
        headers: groupedHeaders(res.headers),
        body: latin1Text(res.body),
      };
    }
    const response = await client.fetch(url, { method, signal });
    const body = new Uint8Array(await response.arrayBuffer());
    const pairs: [string, string][] = [];
    for (const [name, value] of response.headers) {
      if (name === "set-cookie") continue;
      for (const part of value.split(", ")) pairs.push([name, part]);
    }
    for (const cookie of response.headers.getSetCookie()) {
      pairs.push(["set-cookie", cookie]);
    }
    return {
      ok: true,
      status: response.status,
      headers: groupedHeaders(pairs, true),
      body: latin1Text(body),
    };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}

/** The same call through undici's `Client` (llhttp). */
async function oracle(
  client: Client,
  path: string,
  method: "GET" | "HEAD",
): Promise<Outcome> {
  try {
    const res = await client.request({ path, method });
    const parts: Uint8Array[] = [];
    for await (const part of res.body) parts.push(part);
    const pairs: [string, string][] = [];
    for (const [name, value] of Object.entries(res.headers)) {
      for (const one of Array.isArray(value) ? value : [value ?? ""]) {
        pairs.push([name, one]);
      }
    }
    return {
      ok: true,
      status: res.statusCode,
      headers: groupedHeaders(pairs),
      body: parts.map(latin1Text).join(""),
    };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}

/**
 * Headers compared as names in lower case with their values in order, without
 * leading or trailing blanks (which are not part of a field value, RFC 9110 5.5;
 * undici keeps trailing ones); with `split`, values joined by `fetch`'s `Headers`
 * were split back.
 */
function groupedHeaders(pairs: [string, string][], split = false): string {
  const grouped = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    const values = grouped.get(name.toLowerCase()) ?? [];
    values.push(...(split ? value.split(", ") : [value]));
    grouped.set(name.toLowerCase(), values);
  }
  return JSON.stringify(
    [...grouped].sort(([a], [b]) => a < b ? -1 : 1).map(([name, values]) => [
      name,
      values.flatMap((value) => value.split(", ")).map((value) => value.trim()),
    ]),
  );
}

function latin1Text(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}

/** The scripts of `test`: as written, or split once at every byte boundary. */
function variants(test: Case): [string, ScriptStep[]][] {
  const played: [string, ScriptStep[]][] = [["", test.steps]];
  if (!test.split) return played;
  const [text] = test.steps as [string];
  for (let at = 1; at < text.length; at++) {
    played.push([` (split at ${at})`, [text.slice(0, at), 2, text.slice(at)]]);
  }
  return played;
}

/** An `https:` server behind a `CONNECT` proxy, for ours to reach through it. */
interface Tunnel {
  tls: TestTls;
  proxy: ConnectProxy;
}

/**
 * Plays one case to both clients (ours through `tunnel` when given); returns our
 * outcomes and the oracle's.
 */
async function play(
  test: Case,
  steps: ScriptStep[],
  split = false,
  tunnel?: Tunnel,
): Promise<{ oracle: Outcome; ours: Outcome[]; second: Outcome[] }> {
  const script: Script = { steps, close: test.close };
  const respond = (head: string) =>
    head.startsWith("GET /second ") ? { steps: [SECOND] } : script;
  const server = startScriptedServer(respond);
  const tlsServer = tunnel
    ? startScriptedServer(respond, { tls: tunnel.tls })
    : undefined;
  const oursUrl = tlsServer?.url ?? server.url;
  const method = test.method ?? "GET";
  const timeoutMs = test.silent ? SILENCE_MS : TIMEOUT_MS;
  const undici = new Client(server.url, {
    pipelining: 1,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    maxHeaderSize: 64 * 1024,
  });
  const client = testClient(
    tunnel
      ? {
        proxy: { https: parseProxyUrl(tunnel.proxy.url) },
        caCerts: [tunnel.tls.ca],
      }
      : {},
  );
  const second: Outcome[] = [];
  const outcomes: Outcome[] = [];
  try {
    const expected = await oracle(undici, "/first", method);
    for (const lean of [true, false]) {
      outcomes.push(
        await ours(`${oursUrl}/first`, method, lean, client, timeoutMs),
      );
      if (test.pauseMs) await sleep(test.pauseMs);
      if (split) {
        // Split at the response's very end, the rest is a response of its own come
        // late: no HTTP/1.1 client can tell it from the next call's response once
        // that call has gone out (undici takes it as the response too). The next
        // call waits until it came, and it must be caught while idle.
        for (let i = 0; i < 1000 && server.playing > 0; i++) await sleep(2);
        await sleep(20);
      }
      second.push(await ours(`${oursUrl}/second`, "GET", lean, client));
    }
    return { oracle: expected, ours: outcomes, second };
  } finally {
    client.close();
    await undici.destroy().catch(() => {});
    await server.stop();
    await tlsServer?.stop();
  }
}

Deno.test("the corpus has at least 60 cases", () => {
  assert.ok(CASES.length >= 60, `${CASES.length} cases`);
});

/** Checks our outcomes of one case against the oracle's (see the module). */
function judge(
  test: Case,
  suffix: string,
  result: { oracle: Outcome; ours: Outcome[]; second: Outcome[] },
): void {
  for (const [index, outcome] of result.ours.entries()) {
    const via = index === 0 ? "exchange" : "fetch";
    const label = `${test.name}${suffix} via ${via}`;
    if (test.required) {
      assert.ok(
        outcome.ok && outcome.body === test.required.body,
        `${label}: ${test.required.why}, got ${JSON.stringify(outcome)}`,
      );
    } else if (!result.oracle.ok) {
      assert.equal(
        outcome.ok,
        false,
        `${label}: accepted what undici refused (${result.oracle.error})`,
      );
    } else if (outcome.ok) {
      assert.deepEqual(outcome, result.oracle, label);
    } else {
      assert.ok(
        test.stricter,
        `${label}: refused what undici accepted (${outcome.error})`,
      );
    }
    const next = result.second[index]!;
    assert.deepEqual(
      next,
      {
        ok: true,
        status: 200,
        headers: '[["content-length",["6"]]]',
        body: "second",
      },
      `${label}: the next call got ${JSON.stringify(next)}`,
    );
  }
}

Deno.test("createHttp1Client() is never more lenient than undici (llhttp)", async (t) => {
  for (const test of CASES) {
    await t.step(test.name, async () => {
      for (const [suffix, steps] of variants(test)) {
        judge(test, suffix, await play(test, steps, suffix !== ""));
      }
    });
  }
});

Deno.test("createHttp1Client() is as strict through a CONNECT tunnel", async (t) => {
  const tls = await makeTestTls();
  const proxy = startConnectProxy();
  try {
    for (const test of CASES) {
      await t.step(test.name, async () => {
        judge(
          test,
          " (tunnelled)",
          await play(test, test.steps, false, { tls, proxy }),
        );
      });
    }
    assert.ok(proxy.heads.length >= CASES.length, "the tunnel was used");
  } finally {
    await proxy.stop();
  }
});
