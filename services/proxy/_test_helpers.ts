/**
 * Test support shared by the proxy suites: a real echoing upstream on 127.0.0.1, raw
 * HTTP/1.1 requests over TCP (`fetch` would normalise hostile paths first), and the
 * proxy served on a free port.
 *
 * @module
 */
import { type RunningServer, serveApp } from "../../lib/serve.ts";
import { createProxyApp, type ProxyAppOptions } from "./app.ts";

/** What the echo upstream returns: the request as it arrived. */
export interface Echo {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string;
}

/** A running echo upstream. */
export interface EchoUpstream {
  /** Base URL, e.g. `http://127.0.0.1:12345`. */
  readonly url: string;
  /** Every raw path (with query) it received, in order. */
  readonly seen: string[];
  /** Stops it. */
  stop(): Promise<void>;
}

/**
 * Starts an upstream returning 200 with an {@linkcode Echo} of each request (and a
 * `Set-Cookie` when the path ends in `/cookie`).
 */
export function startEchoUpstream(): EchoUpstream {
  const seen: string[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const raw = request.url.replace(/^[a-z]+:\/\/[^/]*/i, "");
      seen.push(raw);
      const question = raw.indexOf("?");
      const echo: Echo = {
        method: request.method,
        path: question < 0 ? raw : raw.slice(0, question),
        query: question < 0 ? "" : raw.slice(question),
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
      };
      const headers = new Headers({ "x-upstream": "echo" });
      // Cookies, which the proxy must keep off its own host.
      if (echo.path.endsWith("/cookie")) {
        headers.append("set-cookie", "upstream=1; Path=/");
      }
      return Response.json(echo, { headers });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    seen,
    stop: () => server.shutdown(),
  };
}

/** A raw HTTP response. */
export interface RawResponse {
  /** Status code of the status line. */
  status: number;
  /** Header names (lower case) and values. */
  headers: Map<string, string>;
  /** The body as text (de-chunked). */
  body: string;
}

/**
 * Sends `GET {target} HTTP/1.1` (or the given method) exactly as written over a new
 * TCP connection to 127.0.0.1:`port`, and reads the response until the server closes.
 */
export async function rawRequest(
  port: number,
  target: string,
  options: { method?: string; body?: string; headers?: string[] } = {},
): Promise<RawResponse> {
  const body = options.body ?? "";
  const lines = [
    `${options.method ?? "GET"} ${target} HTTP/1.1`,
    "Host: 127.0.0.1",
    "Connection: close",
    ...(options.headers ?? []),
    ...(body
      ? [`Content-Length: ${new TextEncoder().encode(body).length}`]
      : []),
  ];
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  const bytes: number[] = [];
  try {
    await connection.write(
      new TextEncoder().encode(`${lines.join("\r\n")}\r\n\r\n${body}`),
    );
    const buffer = new Uint8Array(16 * 1024);
    while (true) {
      const count = await connection.read(buffer);
      if (count === null) break;
      bytes.push(...buffer.subarray(0, count));
    }
  } finally {
    connection.close();
  }
  // One char per byte, so chunk sizes count right; the body is decoded as UTF-8 last.
  let latin1 = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    latin1 += String.fromCharCode(...bytes.slice(i, i + 8192));
  }
  return parseResponse(latin1);
}

function parseResponse(text: string): RawResponse {
  const split = text.indexOf("\r\n\r\n");
  const head = split < 0 ? text : text.slice(0, split);
  let body = split < 0 ? "" : text.slice(split + 4);
  const [statusLine = "", ...headerLines] = head.split("\r\n");
  const headers = new Map<string, string>();
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    headers.set(
      line.slice(0, colon).trim().toLowerCase(),
      line.slice(colon + 1).trim(),
    );
  }
  if (headers.get("transfer-encoding") === "chunked") body = unchunk(body);
  const utf8 = new TextDecoder().decode(
    Uint8Array.from(body, (char) => char.charCodeAt(0)),
  );
  return {
    status: Number(statusLine.split(" ")[1] ?? 0),
    headers,
    body: utf8,
  };
}

function unchunk(text: string): string {
  let out = "";
  let rest = text;
  while (rest.length > 0) {
    const lineEnd = rest.indexOf("\r\n");
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) break;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
  return out;
}

/** A seeded pseudo-random generator (mulberry32) returning numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Serves a proxy app on a free 127.0.0.1 port, as the role does, for tests. */
export function serveTestProxy(options: ProxyAppOptions): RunningServer {
  return serveApp(createProxyApp(options), {
    hostname: "127.0.0.1",
    port: 0,
    log: options.log,
    name: "proxy",
  });
}
