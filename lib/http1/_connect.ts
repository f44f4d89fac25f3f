/**
 * Opening the pooled client's connections: straight to the server, to the
 * outbound proxy (plain HTTP, absolute-form requests), or through the proxy's
 * `CONNECT` tunnel and then TLS to the origin (`https:`).
 *
 * @module
 */
import { ByteReader } from "./_byte_reader.ts";
import { closeQuietly, type Connection } from "./_send.ts";
import { latin1, parseHead } from "./_wire.ts";
import { writeAll } from "./_write.ts";
import { ProxyRefusedError, SocketError } from "./errors.ts";
import {
  type OutboundProxy,
  proxyFor,
  type ProxyServer,
} from "./outbound_proxy.ts";

/** Bytes of a connection's reused buffer for request heads. */
const OUT_SIZE = 4096;
/** Longest response head a proxy may send to a `CONNECT`. */
const MAX_CONNECT_HEAD = 16 * 1024;

/** How a request reaches its server. */
export interface Route {
  /** Pool key: requests of one key share connections. */
  key: string;
  /** The proxy on the way, if any. */
  proxy?: ProxyServer;
  /** Through the proxy's `CONNECT` tunnel, then TLS (`https:`). */
  tunnel: boolean;
}

/** The origin of `url` as `host:port` (a `CONNECT` target, and for messages). */
export function targetOf(url: URL): string {
  return `${url.hostname}:${
    url.port || (url.protocol === "https:" ? 443 : 80)
  }`;
}

/**
 * The route of `url`, or `undefined` when the pooled client does not serve it: it
 * serves `http:` URLs, and `https:` URLs that go through a proxy.
 */
export function routeOf(
  url: URL,
  proxy: OutboundProxy | undefined,
): Route | undefined {
  const http = url.protocol === "http:";
  if (!http && url.protocol !== "https:") return undefined;
  const via = proxyFor(proxy, url);
  if (!http && via === undefined) return undefined;
  if (via === undefined) return { key: url.host, tunnel: false };
  return {
    key: `${url.protocol}//${targetOf(url)} via ${via.hostname}:${via.port}`,
    proxy: via,
    tunnel: !http,
  };
}

/** Options of {@linkcode connect}. */
export interface ConnectOptions {
  /** Ends a connect (or a tunnel's set-up) that hangs. */
  signal?: AbortSignal;
  /** CA certificates trusted for origins reached through a tunnel, besides the system's. */
  caCerts?: string[];
}

/** Opens a connection for `url` along `route`. */
export async function connect(
  url: URL,
  route: Route,
  options: ConnectOptions = {},
): Promise<Connection> {
  const { signal } = options;
  const proxy = route.proxy;
  const conn = await Deno.connect({
    hostname: proxy?.hostname ?? url.hostname.replace(/^\[|\]$/g, ""),
    port: proxy?.port ?? Number(url.port || 80),
    signal,
  }).catch((error) => {
    throw signal?.aborted
      ? signal.reason
      : new SocketError(error, proxy?.shown);
  });
  conn.setNoDelay(true);
  if (!route.tunnel || proxy === undefined) return connection(conn);
  const abort = () => closeQuietly(conn);
  signal?.addEventListener("abort", abort, { once: true });
  try {
    await openTunnel(conn, targetOf(url), proxy);
    const tls = await Deno.startTls(conn, {
      hostname: url.hostname.replace(/^\[|\]$/g, ""),
      caCerts: options.caCerts,
      alpnProtocols: ["http/1.1"],
    });
    return connection(tls);
  } catch (error) {
    closeQuietly(conn);
    if (signal?.aborted) throw signal.reason;
    if (error instanceof ProxyRefusedError || error instanceof SocketError) {
      throw error;
    }
    throw new SocketError(error);
  } finally {
    signal?.removeEventListener("abort", abort);
  }
}

/** Asks `proxy` for a tunnel to `target` on `conn`; throws unless it says 2xx. */
async function openTunnel(
  conn: Deno.TcpConn,
  target: string,
  proxy: ProxyServer,
): Promise<void> {
  const auth = proxy.authorization === undefined
    ? ""
    : `proxy-authorization: ${proxy.authorization}\r\n`;
  await writeAll(
    conn,
    latin1(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n${auth}\r\n`),
  ).catch((error) => {
    throw new SocketError(error, proxy.shown);
  });
  const reader = new ByteReader(conn);
  let head;
  try {
    head = parseHead(await reader.readHead(MAX_CONNECT_HEAD));
  } catch (error) {
    throw new SocketError(error, proxy.shown);
  }
  if (head.status < 200 || head.status > 299) {
    throw new ProxyRefusedError(
      proxy.shown,
      target,
      head.status,
      head.statusText,
    );
  }
  // A proxy sends nothing more until the client speaks TLS.
  if (reader.buffered > 0) {
    throw new SocketError(
      new Error(`sent ${reader.buffered} bytes after its 2xx to CONNECT`),
      proxy.shown,
    );
  }
}

function connection(conn: Deno.Conn): Connection {
  return {
    conn,
    reader: new ByteReader(conn),
    out: new Uint8Array(OUT_SIZE),
    idle: false,
  };
}
