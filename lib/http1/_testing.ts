/**
 * Test helpers of the pooled HTTP/1.1 client and of what uses it: a raw TCP server
 * that answers with exactly the bytes a test gives.
 *
 * @module
 */

/**
 * A TCP server on 127.0.0.1 answering each request with the raw bytes `answer`
 * returns (malformed answers included; `null` closes the connection instead), for
 * tests of HTTP clients. Records each request (head and body), and how many
 * connections were opened. With `closeAfterAnswer`, each connection is closed after
 * its first answer.
 */
export function startRawServer(
  answer: (head: string, index: number) => string | Uint8Array | null,
  options: { closeAfterAnswer?: boolean } = {},
) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const heads: string[] = [];
  const conns = new Set<Deno.Conn>();
  let connections = 0;
  const serveConn = async (conn: Deno.Conn) => {
    conns.add(conn);
    connections++;
    let text = "";
    const buffer = new Uint8Array(65536);
    try {
      while (true) {
        const end = text.indexOf("\r\n\r\n");
        if (end >= 0) {
          const head = text.slice(0, end);
          text = text.slice(end + 4);
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
          // (Requests here are not pipelined: what follows the head is its body.)
          while (new TextEncoder().encode(text).length < length) {
            const count = await conn.read(buffer);
            if (count === null) return;
            text += new TextDecoder().decode(buffer.subarray(0, count));
          }
          heads.push(`${head}\r\n\r\n${text}`);
          text = "";
          const reply = answer(head, heads.length - 1);
          if (reply === null) return conn.close();
          await conn.write(
            typeof reply === "string" ? new TextEncoder().encode(reply) : reply,
          );
          if (options.closeAfterAnswer) return;
          continue;
        }
        const count = await conn.read(buffer);
        if (count === null) return;
        text += new TextDecoder().decode(buffer.subarray(0, count));
      }
    } catch {
      // closed by the test
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
    /** Closes the idle server side of every open connection. */
    dropConnections() {
      for (const conn of conns) conn.close();
    },
    async stop() {
      listener.close();
      for (const conn of conns) conn.close();
      await accepting;
      await new Promise((resolve) => setTimeout(resolve, 10));
    },
  };
}
