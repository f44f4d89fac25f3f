import assert from "node:assert/strict";
import { parseRoutes } from "./routes.ts";
import { readRouteRateLimits } from "./route_rate_limits.ts";

const routes = parseRoutes(
  "api=http://127.0.0.1:1,open-weather=http://127.0.0.1:2",
);

Deno.test("readRouteRateLimits() reads each route's limits", () => {
  const read = readRouteRateLimits({
    PROXY_ROUTE_API_RATE_LIMIT: "off",
    PROXY_ROUTE_OPEN_WEATHER_RATE_LIMIT: "5/1s",
    PROXY_UPSTREAM_RATE_LIMIT_OPEN_WEATHER: "60/1m",
    PROXY_RATE_LIMIT: "1/1s",
  }, routes);
  assert.deepEqual(read.problems, []);
  assert.equal(read.perClient.get("api"), null);
  assert.equal(read.perClient.get("open-weather")?.limit, 5);
  assert.equal(read.upstream.get("open-weather")?.windowMs, 60_000);
  assert.equal(read.upstream.has("api"), false);
});

Deno.test("readRouteRateLimits() names each bad variable", () => {
  const { problems } = readRouteRateLimits({
    PROXY_ROUTE_NOPE_RATE_LIMIT: "1/1s",
    PROXY_UPSTREAM_RATE_LIMIT_API: "off",
    PROXY_ROUTE_API_RATE_LIMIT: "lots",
  }, routes);
  assert.equal(problems.length, 3);
  assert.match(
    problems[0]!,
    /^Invalid PROXY_ROUTE_API_RATE_LIMIT "lots": expected off or/,
  );
  assert.match(
    problems[1]!,
    /^Invalid PROXY_ROUTE_NOPE_RATE_LIMIT: it names no route/,
  );
  assert.match(
    problems[2]!,
    /^Invalid PROXY_UPSTREAM_RATE_LIMIT_API "off": expected requests/,
  );
});
