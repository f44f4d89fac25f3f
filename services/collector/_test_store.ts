/**
 * A local stand-in for the time-series store's write endpoint, for unit tests:
 * responds with queued statuses (or hangs, or a status with a JSON body of its own),
 * then 204, and records what it accepted.
 * The suites in `tests/` use the real servers.
 *
 * @module
 */
import { sleep } from "../../lib/backoff.ts";

/** A store stand-in responding with the queued statuses, then 204. */
export function startStore() {
  const statuses: (number | "hang" | { status: number; body: unknown })[] = [];
  const bodies: string[] = [];
  const requests: {
    url: string;
    auth: string | null;
    contentType: string | null;
    encoding: string | null;
  }[] = [];
  const closing = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      const body = await request.text();
      requests.push({
        url: request.url,
        auth: request.headers.get("authorization"),
        contentType: request.headers.get("content-type"),
        encoding: request.headers.get("content-encoding"),
      });
      const status = statuses.shift() ?? 204;
      if (typeof status === "object") {
        return Response.json(status.body, { status: status.status });
      }
      if (status === "hang") {
        await sleep(10_000, closing.signal);
        return new Response(null, { status: 204 });
      }
      if (status === 204) {
        bodies.push(body);
        return new Response(null, { status });
      }
      return Response.json({ error: `failure ${status}` }, { status });
    },
  );
  return {
    port: server.addr.port,
    statuses,
    bodies,
    requests,
    lines: () => bodies.flatMap((b) => b.split("\n")),
    async close() {
      closing.abort();
      await server.shutdown();
    },
  };
}
