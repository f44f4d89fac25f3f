/**
 * A real HTTP endpoint on 127.0.0.1 recording what the forwarder posts, for tests.
 *
 * @module
 */
import { sleep } from "../../lib/backoff.ts";

/** One request the sink received. */
export interface SinkRequest {
  readonly method: string;
  /** The whole request URL. */
  readonly url: string;
  readonly headers: Headers;
  readonly body: string;
  /** Client port of the connection it came on (the same one when reused). */
  readonly remotePort: number;
}

/** Options of {@linkcode startSink}. */
export interface SinkOptions {
  /** Port to bind. @default a free one */
  port?: number;
  /** Status of each reply; may depend on the request. @default 200 */
  status?: number | ((request: SinkRequest) => number);
  /** Delay before each reply, in ms. @default 0 */
  delayMs?: number | ((request: SinkRequest) => number);
  /** The whole reply, instead of `"ok"` with `status`. */
  reply?: (request: SinkRequest) => Response;
}

/** A running sink. */
export interface Sink {
  readonly url: string;
  readonly port: number;
  /** Every request, in arrival order. */
  readonly requests: SinkRequest[];
  /** The bodies received, in arrival order. */
  bodies(): string[];
  /** Resolves once `count` requests have arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  /** Ends delayed replies early and stops the server. */
  stop(): Promise<void>;
}

/** Starts a sink on 127.0.0.1. */
export function startSink(options: SinkOptions = {}): Sink {
  const requests: SinkRequest[] = [];
  const closing = new AbortController();
  const pick = (
    value: number | ((r: SinkRequest) => number) | undefined,
    request: SinkRequest,
    fallback: number,
  ) => typeof value === "function" ? value(request) : value ?? fallback;
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: options.port ?? 0,
    onListen: () => {},
  }, async (req, info) => {
    const request = {
      method: req.method,
      url: req.url,
      headers: req.headers,
      body: await req.text(),
      remotePort: info.remoteAddr.port,
    };
    requests.push(request);
    const delay = pick(options.delayMs, request, 0);
    if (delay > 0) await sleep(delay, closing.signal);
    return options.reply?.(request) ??
      new Response("ok", { status: pick(options.status, request, 200) });
  });
  const port = (server.addr as Deno.NetAddr).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    requests,
    bodies: () => requests.map((r) => r.body),
    async waitFor(count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > deadline) {
          throw new Error(
            `The sink got ${requests.length} requests, not ${count}, within ${timeoutMs} ms`,
          );
        }
        await sleep(20);
      }
    },
    async stop() {
      closing.abort();
      await server.shutdown();
    },
  };
}
