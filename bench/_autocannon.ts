/**
 * Runs one autocannon load described by the JSON in the first argument and prints a
 * JSON `LoadResult`. Started by `load()` in `_runner.ts` as its own process.
 *
 * @module
 */
import autocannon from "autocannon";
import type { LoadOptions } from "./_runner.ts";

const options: LoadOptions = JSON.parse(Deno.args[0] ?? "{}");
const result = await autocannon({
  url: options.url,
  connections: options.connections ?? 50,
  duration: options.seconds ?? 10,
  method: (options.method ?? "GET") as "GET",
  body: options.body,
  headers: options.headers,
  ...(options.amount === undefined ? {} : { amount: options.amount }),
  ...(options.requests === undefined ? {} : {
    requests: options.requests.map((request) => ({
      ...request,
      method: (request.method ?? "GET") as "GET",
    })),
  }),
});
const bad = result.non2xx + result.errors + result.timeouts;
console.log(
  JSON.stringify({
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: bad,
  }),
);
