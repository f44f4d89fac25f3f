/**
 * HTTP serving for the roles: a Hono app with the product's conventions, served on
 * `Deno.serve` with a graceful, bounded shutdown.
 *
 * @module
 */
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import { errorText, type Log } from "./log.ts";
import { host, port } from "./setting_kinds.ts";

/** Options of {@linkcode createHttpApp}. */
export interface HttpAppOptions {
  /** Where unexpected errors are logged. */
  log: Log;
  /** Answer `GET /healthz` with `{"status":"ok"}`. @default true */
  healthz?: boolean;
}

/**
 * Returns a Hono app with `GET /healthz`, JSON error bodies `{"message": ...}` for
 * `HTTPException`s and 404s, 405 with `Allow` for another method on a path that has
 * routes of its own, and a logged 500 for anything else.
 *
 * Throw `new HTTPException(status, { message })` from a handler to answer an error;
 * pass `res` instead to answer a body of your own (an empty one, for instance).
 *
 * @example
 * ```ts
 * const app = createHttpApp({ log });
 * app.get("/hello", (c) => c.json({ hello: "world" }));
 * ```
 */
export function createHttpApp(options: HttpAppOptions): Hono {
  const app = new Hono();
  if (options.healthz ?? true) {
    app.get("/healthz", (c) => c.json({ status: "ok" }));
  }
  app.notFound((c) => {
    const allowed = allowedMethods(app, c.req.path);
    if (allowed.length === 0) return c.json({ message: "Not found" }, 404);
    const allow = allowed.join(", ");
    return c.json(
      { message: `Method ${c.req.method} not allowed: use ${allow}` },
      405,
      {
        allow,
      },
    );
  });
  app.onError((error, c) => {
    if (error instanceof HTTPException) {
      if (error.res) return error.getResponse();
      return c.json(
        { message: error.message || statusText(error.status) },
        error.status,
      );
    }
    options.log.error(
      `${c.req.method} ${c.req.path} failed: ${errorText(error)}`,
    );
    return c.json({ message: "Internal server error" }, 500);
  });
  keepHeadLength(app);
  return app;
}

/**
 * Hono answers HEAD through the GET route without its body, and Deno then sends
 * `Content-Length: 0`. A successful HEAD answer gets the length of the GET answer
 * instead, as RFC 9110 (section 9.3.2) asks. A role that refuses HEAD (data-api's
 * and the notifier's 405) is never asked the GET: the notifier's GET sends a push.
 */
function keepHeadLength(app: Hono): void {
  const dispatch = app.fetch;
  app.fetch = async (request, ...rest) => {
    const response = await dispatch(request, ...rest);
    if (
      request.method !== "HEAD" || !response.ok ||
      response.headers.has("content-length")
    ) {
      return response;
    }
    const get = await dispatch(
      new Request(request, { method: "GET" }),
      ...rest,
    );
    if (get.status !== response.status || get.body === null) {
      await get.body?.cancel();
      return response;
    }
    const headers = new Headers(response.headers);
    headers.set("content-length", String((await get.arrayBuffer()).byteLength));
    return new Response(null, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}

/** The methods routed on exactly `path` (GET implies HEAD); middleware aside. */
function allowedMethods(app: Hono, path: string): string[] {
  const methods = new Set<string>();
  for (const route of app.routes) {
    if (route.path !== path || route.method === "ALL") continue;
    methods.add(route.method);
    if (route.method === "GET") methods.add("HEAD");
  }
  return [...methods];
}

function statusText(status: number): string {
  return {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    413: "Request body too large",
  }[status] ?? `HTTP ${status}`;
}

/**
 * Middleware answering 413 `{"message": ...}` when a request body exceeds `maxBytes`
 * (declared or streamed). A body without a declared length is read here, up to the
 * limit, and handed on as bytes.
 *
 * Unlike Hono's `bodyLimit`, it never copies the request (a copy reads
 * `request.signal`, which makes Deno print a warning outside the log format).
 *
 * @example
 * ```ts
 * app.use("/api/*", limitBody(64 * 1024));
 * ```
 */
export function limitBody(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const request = c.req.raw;
    const declared = request.headers.get("content-length");
    if (declared !== null && Number(declared) > maxBytes) {
      return tooLarge(c, maxBytes);
    }
    // A declared length is enforced by the server itself.
    if (request.body === null || declared !== null) return await next();
    const bytes = await readAtMost(request.body, maxBytes);
    if (!bytes) return tooLarge(c, maxBytes);
    c.req.raw = new Request(request.url, {
      method: request.method,
      headers: request.headers,
      body: bytes,
    });
    await next();
  };
}

/**
 * The request body as text. A body that cannot be read (the client went away
 * mid-upload) or is not UTF-8 (which would be stored with replacement characters)
 * is a 400, not a server error.
 *
 * @example
 * ```ts
 * app.post("/items", async (c) => c.json(JSON.parse(await bodyText(c))));
 * ```
 */
export async function bodyText(c: Context): Promise<string> {
  let bytes: ArrayBuffer;
  try {
    bytes = await c.req.arrayBuffer();
  } catch {
    throw unreadableBody();
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new HTTPException(400, {
      message: "Invalid body: it is not valid UTF-8 text",
    });
  }
}

function unreadableBody(): HTTPException {
  return new HTTPException(400, {
    message: "The request body could not be read: the upload was cut short",
  });
}

function tooLarge(c: Context, maxBytes: number): Response {
  return c.json({
    message: `Request body too large: the limit is ${maxBytes} bytes`,
  }, 413);
}

/** The whole stream as bytes, or `undefined` (and the stream cancelled) past `max`. */
async function readAtMost(
  stream: ReadableStream<Uint8Array>,
  max: number,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  while (true) {
    const { done, value } = await reader.read().catch(() => {
      throw unreadableBody();
    });
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/** Settings `<PREFIX>_HOST` and `<PREFIX>_PORT` of an HTTP role. */
export function listenSettings<P extends string>(
  prefix: P,
  defaultPort: number,
) {
  return {
    [`${prefix}_HOST`]: host({
      description: "Address to listen on",
      default: "0.0.0.0",
    }),
    [`${prefix}_PORT`]: port({
      description: "Port to listen on",
      default: defaultPort,
    }),
  } as
    & { [K in `${P}_HOST`]: ReturnType<typeof host> }
    & { [K in `${P}_PORT`]: ReturnType<typeof port> };
}

/**
 * Where a server whose settings came from {@linkcode listenSettings} listens, with
 * the names of those settings for the messages of {@linkcode serveApp}.
 *
 * @example
 * ```ts
 * serveApp(app, { ...listenAt("MESSAGES", settings), log, name: "messages" });
 * ```
 */
export function listenAt<P extends string>(
  prefix: P,
  settings: Readonly<Record<`${P}_HOST`, string> & Record<`${P}_PORT`, number>>,
): Pick<ServeOptions, "hostname" | "port" | "hostSetting" | "portSetting"> {
  const hostSetting = `${prefix}_HOST` as const;
  const portSetting = `${prefix}_PORT` as const;
  const hosts: Readonly<Record<`${P}_HOST`, string>> = settings;
  const ports: Readonly<Record<`${P}_PORT`, number>> = settings;
  return {
    hostname: hosts[hostSetting],
    port: ports[portSetting],
    hostSetting,
    portSetting,
  };
}

/**
 * The host of a URL that reaches a server listening on `hostname` from this machine:
 * `127.0.0.1` for the wildcard addresses, an IPv6 address in brackets.
 *
 * @example
 * ```ts
 * reachableHost("0.0.0.0"); // "127.0.0.1"
 * reachableHost("::1"); // "[::1]"
 * ```
 */
export function reachableHost(hostname: string): string {
  if (hostname === "0.0.0.0" || hostname === "::") return "127.0.0.1";
  return hostname.includes(":") ? `[${hostname}]` : hostname;
}

/** Options of {@linkcode serveApp}. */
export interface ServeOptions {
  /** Address to bind. */
  hostname: string;
  /** Port to bind; 0 picks a free one. */
  port: number;
  /** Gets the "listening" line. */
  log: Log;
  /** Name used in log lines. */
  name: string;
  /** The setting that chose the port, named when the port is taken (`DATA_API_PORT`). */
  portSetting?: string;
  /** The setting that chose the host, named when it cannot be bound (`DATA_API_HOST`). */
  hostSetting?: string;
  /** Headers of every answer of the app, added to the 503 given while stopping. */
  headers?: Record<string, string>;
  /** Longest wait for in-flight requests at shutdown. @default 10000 */
  shutdownTimeoutMs?: number;
}

/** A running HTTP server. */
export interface RunningServer {
  /** The bound port (useful when 0 was asked). */
  readonly port: number;
  /** A URL to reach the server locally. */
  readonly url: string;
  /** Stops accepting, waits for in-flight requests (bounded), then resolves. */
  stop(): Promise<void>;
}

/**
 * Serves a fetch handler on `Deno.serve` and logs where it listens.
 *
 * @example
 * ```ts
 * const server = serveApp(app, { hostname: "0.0.0.0", port: 8001, log, name: "messages" });
 * await server.stop();
 * ```
 */
export function serveApp(
  app: {
    fetch: (
      request: Request,
      info: Deno.ServeHandlerInfo,
    ) => Response | Promise<Response>;
  },
  options: ServeOptions,
): RunningServer {
  // Requests whose handler has not answered yet. `server.shutdown()` cuts off a
  // request body still arriving, so a stop first waits for these to answer.
  let inFlight = 0;
  let draining = false;
  let drained: (() => void) | undefined;
  const answered = () => {
    if (--inFlight === 0) drained?.();
  };
  const handler = (request: Request, info: Deno.ServeHandlerInfo) => {
    if (draining) return stopping(options);
    // Deno builds the URL from the Host header and the path: a Host carrying a path
    // would move the request to another route.
    if (HOST_WITH_PATH.test(request.headers.get("host") ?? "")) {
      return Response.json({ message: "Invalid Host header" }, {
        status: 400,
        headers: options.headers,
      });
    }
    inFlight++;
    let result: Response | Promise<Response>;
    try {
      result = app.fetch(request, info);
    } catch (error) {
      answered();
      throw error;
    }
    if (result instanceof Promise) return result.finally(answered);
    answered();
    return result;
  };
  let server: Deno.HttpServer;
  try {
    server = Deno.serve({
      hostname: options.hostname,
      port: options.port,
      onListen: () => {},
    }, handler);
  } catch (error) {
    throw new Error(listenProblem(options, error), { cause: error });
  }
  const addr = server.addr as Deno.NetAddr;
  const host = addr.hostname.includes(":")
    ? `[${addr.hostname}]`
    : addr.hostname;
  options.log.info(`${options.name} listening on http://${host}:${addr.port}`);
  return {
    port: addr.port,
    url: `http://${reachableHost(addr.hostname)}:${addr.port}`,
    async stop() {
      const timeout = options.shutdownTimeoutMs ?? 10_000;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const expired = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), timeout);
      });
      draining = true;
      const answering = inFlight === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => drained = resolve);
      const outcome = await Promise.race([
        answering.then(() => server.shutdown()).then(() => "done" as const),
        expired,
      ]);
      clearTimeout(timer);
      if (outcome === "timeout") {
        options.log.warn(
          `${options.name}: requests still running after ${timeout} ms; stopping`,
        );
      }
    },
  };
}

/** Characters a Host header never holds but a URL's path, query or user part do. */
const HOST_WITH_PATH = /[/?#@\\]/;

/** The answer to a request that comes while the server is stopping. */
function stopping(options: ServeOptions): Response {
  return Response.json({
    message: `${options.name} is stopping: try again later`,
  }, {
    status: 503,
    headers: { ...options.headers, connection: "close", "retry-after": "5" },
  });
}

/** Why a server could not listen, and what to do about it. */
function listenProblem(options: ServeOptions, error: unknown): string {
  const where = options.hostname.includes(":")
    ? `[${options.hostname}]:${options.port}`
    : `${options.hostname}:${options.port}`;
  const fix = error instanceof Deno.errors.AddrInUse
    ? `: stop what uses it${
      options.portSetting ? ` or set ${options.portSetting} to a free port` : ""
    }`
    : options.hostSetting
    ? `: check ${options.hostSetting} (an address of this machine, or 0.0.0.0)`
    : "";
  return `cannot listen on ${where}: ${errorText(error)}${fix}`;
}
