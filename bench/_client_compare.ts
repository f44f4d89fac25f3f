/**
 * Why the pooled HTTP/1.1 client exists: requests per second of our client against
 * `npm:undici`'s `Pool` and against `fetch`, calling the same upstream (its own
 * process) with the same number of calls in flight, in alternating rounds of one
 * run, best round of each.
 *
 * @module
 */
import { Pool } from "undici";
import { createHttp1Client } from "../lib/http1/client.ts";
import { freePort, report, spawn, waitForHttp } from "./_runner.ts";

const CONCURRENCY = 50;
const SECONDS = 3;
const ROUNDS = 3;
const BODY = JSON.stringify({ id: 1, message: "A fixed response" });

/** One call, body read whole; resolves when done. */
type Call = () => Promise<void>;

/** Calls per second with `CONCURRENCY` loops running `call` for `SECONDS`. */
async function rate(call: Call): Promise<number> {
  const end = performance.now() + SECONDS * 1000;
  let done = 0;
  const loop = async () => {
    while (performance.now() < end) {
      await call();
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  return Math.round(done / ((performance.now() - started) / 1000));
}

/** Prints the comparison lines. */
export async function compareClients(): Promise<void> {
  const port = freePort();
  const upstream = spawn(Deno.execPath(), [
    "eval",
    `Deno.serve({ hostname: "127.0.0.1", port: ${port}, onListen() {} }, () => new Response(${
      JSON.stringify(BODY)
    }, { headers: { "content-type": "application/json" } }));`,
  ]);
  const url = `http://127.0.0.1:${port}/items`;
  const ours = createHttp1Client({ maxIdlePerHost: CONCURRENCY });
  const pool = new Pool(`http://127.0.0.1:${port}`, {
    connections: CONCURRENCY,
  });
  const calls: Record<"ours" | "undici" | "fetch", Call> = {
    async ours() {
      const response = await ours.request(url);
      if (response.body instanceof ReadableStream) {
        await new Response(response.body).arrayBuffer();
      }
    },
    async undici() {
      const response = await pool.request({ path: "/items", method: "GET" });
      await response.body.arrayBuffer();
    },
    async fetch() {
      await (await fetch(url)).arrayBuffer();
    },
  };
  try {
    await waitForHttp(url);
    const best = { ours: 0, undici: 0, fetch: 0 };
    for (const name of Object.keys(best) as (keyof typeof best)[]) {
      await rate(calls[name]); // warm-up
    }
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of Object.keys(best) as (keyof typeof best)[]) {
        best[name] = Math.max(best[name], await rate(calls[name]));
      }
    }
    console.log(
      `HTTP/1.1 client GET, ${CONCURRENCY} in flight, same upstream, best of ${ROUNDS} alternating ${SECONDS} s rounds (req/s): ours ${best.ours}, undici Pool ${best.undici}, fetch ${best.fetch}`,
    );
    report("client GET rps vs undici Pool", best.ours, best.undici);
    report("client GET rps vs fetch", best.ours, best.fetch);
  } finally {
    ours.close();
    await pool.close();
    await upstream.stop();
  }
}

if (import.meta.main) await compareClients();
