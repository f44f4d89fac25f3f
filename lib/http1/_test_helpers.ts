/**
 * Test helpers of the pooled HTTP/1.1 client and of what uses it: one raw TCP server
 * that responds with exactly the bytes a test gives, written as scripted (each write
 * its own TCP segment, with pauses between them).
 *
 * Also the faces of the client only tests use: `fetch`-like and whole-response
 * requests over `request()` ({@linkcode testClient}).
 *
 * @module
 */
import {
  createHttp1Client,
  type Http1Client,
  type Http1ClientOptions,
} from "./client.ts";
import { type Exchange, exchangeOver } from "./exchange.ts";
import type { UpstreamBody } from "./upstream.ts";

/** A pooled client with the faces tests use. */
export interface TestClient extends Http1Client {
  /**
   * Sends `input` (an `http:` URL) like `fetch`: method, headers, body and signal
   * are honoured; the response keeps its `Content-Encoding` header, as `fetch`'s
   * does.
   */
  fetch(input: string | URL, init?: RequestInit): Promise<Response>;
  /** Sends a request and reads its whole response (`exchangeOver(request)`). */
  exchange: Exchange;
}

/** A pooled client (see `createHttp1Client`) with a `fetch` and an `exchange` face. */
export function testClient(options?: Http1ClientOptions): TestClient {
  const client = createHttp1Client(options);
  return {
    ...client,
    async fetch(input, init = {}) {
      const response = await client.request(input, {
        method: init.method,
        headers: init.headers === undefined
          ? undefined
          : Array.isArray(init.headers)
          ? init.headers as [string, string][]
          : [...new Headers(init.headers)],
        body: (init.body ?? null) as UpstreamBody,
        signal: init.signal,
      });
      return new Response(response.body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    },
    exchange: exchangeOver(client.request),
  };
}

/** One step of a scripted response: bytes to write, or a pause in ms. */
export type ScriptStep = string | Uint8Array | number;

/** A response script, and whether the connection is closed after it. */
export interface Script {
  steps: readonly ScriptStep[];
  /** Close the connection once the steps are written. */
  close?: boolean;
}

/** Options of {@linkcode startScriptedServer}. */
export interface ScriptedServerOptions {
  /** Serve TLS with this certificate and key (PEM): the URL is then `https:`. */
  tls?: { cert: string; key: string };
}

/** A server started by {@linkcode startScriptedServer}. */
export interface ScriptedServer {
  /** `http://127.0.0.1:PORT` (`https:` with TLS). */
  url: string;
  /** Each request received, in order: its head, a blank line, and its body. */
  heads: string[];
  /** Connections accepted so far. */
  readonly connections: number;
  /** Scripts being played now (written in part). */
  readonly playing: number;
  /** Closes the server side of every open connection (the listener stays). */
  dropConnections(): void;
  /** Closes the listener and every connection. */
  stop(): Promise<void>;
}

const decoder = new TextDecoder();
const CRLF2 = [13, 10, 13, 10];

/**
 * Starts a server on 127.0.0.1 that responds to each request (a head, and a body of its
 * `Content-Length`; requests are not pipelined) with the script `respond` returns for
 * it (`head` without its blank line, `body` as UTF-8 text, `index` counting requests
 * from 0). Strings are written as Latin-1 bytes, as given, so any malformed response
 * can be played.
 */
export function startScriptedServer(
  respond: (head: string, body: string, index: number) => Script,
  options: ScriptedServerOptions = {},
): ScriptedServer {
  const listener = options.tls
    ? Deno.listenTls({ hostname: "127.0.0.1", port: 0, ...options.tls })
    : Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const heads: string[] = [];
  const conns = new Set<Deno.Conn>();
  let connections = 0;
  let playing = 0;
  const serveConn = async (conn: Deno.Conn) => {
    conns.add(conn);
    connections++;
    if ("setNoDelay" in conn) (conn as Deno.TcpConn).setNoDelay(true);
    let pending = new Uint8Array(0);
    const buffer = new Uint8Array(65536);
    const more = async () => {
      const count = await conn.read(buffer);
      if (count === null) return false;
      const joined = new Uint8Array(pending.length + count);
      joined.set(pending);
      joined.set(buffer.subarray(0, count), pending.length);
      pending = joined;
      return true;
    };
    try {
      while (true) {
        const end = indexOf(pending, CRLF2);
        if (end < 0) {
          if (!(await more())) return;
          continue;
        }
        const head = decoder.decode(pending.subarray(0, end));
        const length = Number(
          /^content-length: *(\d+)/im.exec(head)?.[1] ?? 0,
        );
        while (pending.length < end + 4 + length) {
          if (!(await more())) return;
        }
        const body = decoder.decode(
          pending.subarray(end + 4, end + 4 + length),
        );
        pending = pending.slice(end + 4 + length);
        heads.push(`${head}\r\n\r\n${body}`);
        const script = respond(head, body, heads.length - 1);
        playing++;
        try {
          for (const step of script.steps) {
            if (typeof step === "number") {
              await new Promise((resolve) => setTimeout(resolve, step));
            } else {
              await writeAll(
                conn,
                typeof step === "string" ? latin1(step) : step,
              );
            }
          }
        } finally {
          playing--;
        }
        if (script.close) return;
      }
    } catch {
      // closed by the client or by the test
    } finally {
      conns.delete(conn);
      closeQuietly(conn);
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) serveConn(conn);
  })().catch(() => {});
  return {
    url: `${options.tls ? "https" : "http"}://127.0.0.1:${
      (listener.addr as Deno.NetAddr).port
    }`,
    heads,
    get connections() {
      return connections;
    },
    get playing() {
      return playing;
    },
    dropConnections() {
      for (const conn of conns) closeQuietly(conn);
    },
    async stop() {
      listener.close();
      for (const conn of conns) closeQuietly(conn);
      await accepting;
      await new Promise((resolve) => setTimeout(resolve, 10));
    },
  };
}

/**
 * A {@linkcode startScriptedServer} responding to each request with the raw bytes
 * `respond` returns, at once (`null` closes the connection instead). With
 * `closeAfterResponse`, each connection is closed after its first response.
 */
export function startRawServer(
  respond: (head: string, index: number) => string | Uint8Array | null,
  options: { closeAfterResponse?: boolean } = {},
): ScriptedServer {
  return startScriptedServer((head, _, index) => {
    const reply = respond(head, index);
    return reply === null
      ? { steps: [], close: true }
      : { steps: [reply], close: options.closeAfterResponse };
  });
}

/** Bytes of a string whose characters are all below 256. */
function latin1(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

function indexOf(bytes: Uint8Array, pattern: number[]): number {
  outer: for (let i = 0; i + pattern.length <= bytes.length; i++) {
    for (let j = 0; j < pattern.length; j++) {
      if (bytes[i + j] !== pattern[j]) continue outer;
    }
    return i;
  }
  return -1;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    written += await conn.write(bytes.subarray(written));
  }
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}
