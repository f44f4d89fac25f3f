/**
 * Serving a role's app on `Deno.serve`: where it listens (`<ROLE>_HOST`,
 * `<ROLE>_PORT`), errors that name those settings, and a graceful, bounded stop.
 *
 * @module
 */
import { errorText, type Log } from "./log.ts";
import { host, port } from "./setting_kinds.ts";

/**
 * Settings `<PREFIX>_HOST` (default `0.0.0.0`) and `<PREFIX>_PORT` of an HTTP role.
 *
 * @example
 * ```ts
 * import { parseSettings } from "./settings.ts";
 *
 * const settings = parseSettings(listenSettings("MESSAGES", 8001), {});
 * settings.MESSAGES_PORT; // 8001
 * ```
 */
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
 * import { Hono } from "hono";
 * import { createLog } from "./log.ts";
 * import { parseSettings } from "./settings.ts";
 *
 * const settings = parseSettings(listenSettings("MESSAGES", 8001), {});
 * const app = new Hono().get("/", (c) => c.text("hello"));
 * const log = createLog("messages");
 * const server = serveApp(app, { ...listenAt("MESSAGES", settings), log, name: "messages" });
 * await server.stop();
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
  /** Headers of every response of the app, added to the 503 given while stopping. */
  headers?: Record<string, string>;
  /** Longest wait for in-flight requests at shutdown. @default 10000 */
  shutdownTimeoutMs?: number;
}

/** The status of a response whose handler failed (Hono responds to most failures first). */
const FAILED = 500;

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
 * import { Hono } from "hono";
 * import { createLog } from "./log.ts";
 *
 * const app = new Hono().get("/", (c) => c.text("hello"));
 * const log = createLog("messages");
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
  // Requests whose handler has not responded yet. `server.shutdown()` cuts off a
  // request body still arriving, so a stop first waits for these to respond.
  let inFlight = 0;
  let draining = false;
  let drained: (() => void) | undefined;
  const responded = () => {
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
      responded();
      return escaped(error);
    }
    if (result instanceof Promise) {
      // One derived promise per request, as `finally` alone would make.
      return result.then((response) => {
        responded();
        return closingWhileDraining(response);
      }, (error) => {
        responded();
        return escaped(error);
      });
    }
    responded();
    return closingWhileDraining(result);
  };
  // A failure the app did not turn into a response: through the logger (its format,
  // its masking), never Deno's raw trace on standard error.
  const escaped = (error: unknown) => {
    options.log.error(`${options.name}: ${errorText(error)}`);
    return Response.json({ message: "Internal server error" }, {
      status: 500,
      headers: options.headers,
    });
  };
  // A response given once the stop has begun closes its connection: a keep-alive
  // client then sends its next request on a new connection, which is refused
  // before anything was sent, rather than on this one as it closes under it.
  const closingWhileDraining = (response: Response) => {
    if (!draining) return response;
    try {
      response.headers.set("connection", "close");
    } catch {
      // immutable headers (a `fetch` response passed on): the close still comes
    }
    return response;
  };
  let server: Deno.HttpServer;
  try {
    server = Deno.serve({
      hostname: options.hostname,
      port: options.port,
      onListen: () => {},
      // Deno's default prints the raw error and its trace to standard error, outside
      // the log format and at any LOG_LEVEL: for a handler that failed, and for a
      // response body that failed mid-way (the role has logged why: the line here
      // is a DEBUG one). Through the role's log instead, masked as its lines are.
      onError(error) {
        options.log.debug(
          `${options.name}: a response failed: ${errorText(error)}`,
        );
        return Response.json({ message: "Internal server error" }, {
          status: FAILED,
          headers: options.headers,
        });
      },
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
      const responding = inFlight === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => drained = resolve);
      const outcome = await Promise.race([
        responding.then(() => server.shutdown()).then(() => "done" as const),
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

/** The response to a request that comes while the server is stopping. */
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
