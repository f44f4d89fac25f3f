/**
 * A raw TCP server playing scripted answers, for conformance tests of HTTP clients:
 * each write of an answer is its own TCP segment, with pauses between them.
 *
 * @module
 */

/** One step of a scripted answer: bytes to write, or a pause in ms. */
export type ScriptStep = string | Uint8Array | number;

/** An answer script, and whether the connection is closed after it. */
export interface Script {
  steps: readonly ScriptStep[];
  /** Close the connection once the steps are written. */
  close?: boolean;
}

/** A server started by {@linkcode startScriptedServer}. */
export interface ScriptedServer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** Request heads received, in order. */
  heads: string[];
  /** Connections accepted so far. */
  readonly connections: number;
  /** Closes the listener and every connection. */
  stop(): Promise<void>;
}

const decoder = new TextDecoder();

/**
 * Starts a server on 127.0.0.1 that answers each request (a head, and a body of its
 * `Content-Length`) with the script `answer` returns for it. Bytes are written as
 * given, so any malformed answer can be played.
 */
export function startScriptedServer(
  answer: (head: string, body: string) => Script,
): ScriptedServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const heads: string[] = [];
  const conns = new Set<Deno.Conn>();
  let connections = 0;
  const serveConn = async (conn: Deno.TcpConn) => {
    conns.add(conn);
    connections++;
    conn.setNoDelay(true);
    let text = "";
    const buffer = new Uint8Array(65536);
    try {
      while (true) {
        const end = text.indexOf("\r\n\r\n");
        if (end < 0) {
          const count = await conn.read(buffer);
          if (count === null) return;
          text += decoder.decode(buffer.subarray(0, count));
          continue;
        }
        const head = text.slice(0, end);
        text = text.slice(end + 4);
        const length = Number(/^content-length: *(\d+)/im.exec(head)?.[1] ?? 0);
        // (Bodies here are ASCII: characters are bytes.)
        while (text.length < length) {
          const count = await conn.read(buffer);
          if (count === null) return;
          text += decoder.decode(buffer.subarray(0, count));
        }
        const body = text.slice(0, length);
        text = text.slice(length);
        heads.push(head);
        const script = answer(head, body);
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
        if (script.close) return;
      }
    } catch {
      // closed by the client or by stop()
    } finally {
      conns.delete(conn);
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
  };
  const accepting = (async () => {
    for await (const conn of listener) serveConn(conn);
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    heads,
    get connections() {
      return connections;
    },
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

/** Bytes of a string whose characters are all below 256. */
export function latin1(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.length) {
    written += await conn.write(bytes.subarray(written));
  }
}
