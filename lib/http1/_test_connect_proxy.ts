/**
 * Test helper: a small forward proxy on 127.0.0.1 that serves `CONNECT` only,
 * relaying the tunnel's bytes both ways unchanged, so that tests can run the
 * pooled client's `https:` requests through a tunnel.
 *
 * @module
 */

/** Options of {@linkcode startConnectProxy}. */
export interface ConnectProxyOptions {
  /** Responds to every `CONNECT` with this status instead of opening the tunnel. */
  refuse?: number;
  /** `user:password` the proxy wants in `Proxy-Authorization` (407 otherwise). */
  credentials?: string;
}

/** A proxy started by {@linkcode startConnectProxy}. */
export interface ConnectProxy {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Each `CONNECT` head received, in order. */
  heads: string[];
  /** Closes the listener and every tunnel. */
  stop(): Promise<void>;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Starts a `CONNECT` proxy (see the module). */
export function startConnectProxy(
  options: ConnectProxyOptions = {},
): ConnectProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const heads: string[] = [];
  const conns = new Set<Deno.Conn>();
  const track = (conn: Deno.Conn) => {
    conns.add(conn);
    return conn;
  };
  const serve = async (client: Deno.Conn) => {
    track(client);
    try {
      let head = "";
      const buffer = new Uint8Array(16 * 1024);
      while (!head.includes("\r\n\r\n")) {
        const count = await client.read(buffer);
        if (count === null) return;
        head += decoder.decode(buffer.subarray(0, count));
      }
      heads.push(head);
      const [method, target] = head.split(" ");
      const auth = /^proxy-authorization: *(.*)$/im.exec(head)?.[1]?.trim();
      const status = method !== "CONNECT"
        ? 405
        : options.credentials !== undefined &&
            auth !== `Basic ${btoa(options.credentials)}`
        ? 407
        : options.refuse;
      if (status !== undefined) {
        await client.write(
          encoder.encode(
            `HTTP/1.1 ${status} Refused\r\nproxy-authenticate: Basic realm="test"\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`,
          ),
        );
        return;
      }
      const [hostname, port] = [
        target!.slice(0, target!.lastIndexOf(":")).replace(/^\[|\]$/g, ""),
        Number(target!.slice(target!.lastIndexOf(":") + 1)),
      ];
      const upstream = track(await Deno.connect({ hostname, port }));
      await client.write(
        encoder.encode("HTTP/1.1 200 Connection Established\r\n\r\n"),
      );
      await Promise.allSettled([
        client.readable.pipeTo(upstream.writable),
        upstream.readable.pipeTo(client.writable),
      ]);
    } catch {
      // closed by either side or by the test
    } finally {
      for (const conn of [client]) {
        conns.delete(conn);
        try {
          conn.close();
        } catch {
          // already closed
        }
      }
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) serve(conn);
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    heads,
    async stop() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // already closed
        }
      }
      await accepting;
    },
  };
}
