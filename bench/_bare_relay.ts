/**
 * The floor of `deno task bench proxy`: the least a relay on `Deno.serve` can do for
 * the bench's route, run as its own process (one JavaScript thread, as the proxy).
 * Each request goes to the upstream through the proxy's HTTP/1.1 client with the
 * route's query parameter and header added, and comes back with the upstream's
 * status, headers and body plus the two CORS headers. Nothing is checked: no
 * path or header validation, no time-outs, no logging; of the hop-by-hop headers,
 * only `connection` (and `host`) is left out of the request and `connection` and
 * `keep-alive` out of the response. What the proxy costs above this is its own;
 * what this costs is the runtime's and the client's (which makes 2.2 to 2.6 times
 * the requests per second of undici's `Pool`: `_client_compare.ts`).
 *
 * Environment: `BARE_PORT`, `BARE_UPSTREAM` (the route's base URL, `http://…/api`),
 * `BARE_QUERY` (`name=value`), `BARE_HEADER` (`Name: value`).
 *
 * @module
 */
import { createHttp1Client } from "../lib/http1/client.ts";

const env = (name: string): string => {
  const value = Deno.env.get(name);
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};
const base = env("BARE_UPSTREAM");
const query = env("BARE_QUERY");
const header = env("BARE_HEADER");
const colon = header.indexOf(":");
const added: [string, string] = [
  header.slice(0, colon).trim(),
  header.slice(colon + 1).trim(),
];
const client = createHttp1Client();
const CORS: [string, string][] = [
  ["access-control-allow-origin", "*"],
  ["access-control-expose-headers", "*"],
];

Deno.serve({
  hostname: "127.0.0.1",
  port: Number(env("BARE_PORT")),
  onListen: () => {},
}, async (request) => {
  const url = new URL(request.url);
  const path = url.pathname.slice(url.pathname.indexOf("/", 1));
  const search = url.search ? `${url.search}&${query}` : `?${query}`;
  const headers: [string, string][] = [added];
  for (const pair of request.headers) {
    if (pair[0] !== "host" && pair[0] !== "connection") headers.push(pair);
  }
  const response = await client.request(`${base}${path}${search}`, {
    method: request.method,
    headers,
  });
  const returned = response.headers.filter(([name]) =>
    name !== "connection" && name !== "keep-alive"
  );
  returned.push(...CORS);
  return new Response(response.body, {
    status: response.status,
    headers: returned,
  });
});
