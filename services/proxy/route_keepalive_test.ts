import assert from "node:assert/strict";
import { readRouteKeepAlive } from "./route_keepalive.ts";
import { parseRoutes } from "./routes.ts";

Deno.test("readRouteKeepAlive() reads PROXY_ROUTE_<NAME>_KEEPALIVE per route", () => {
  const routes = parseRoutes(
    "legacy-api=http://127.0.0.1:8080,other=http://127.0.0.1:8081,third=http://127.0.0.1:8082",
  );
  const { off, problems } = readRouteKeepAlive({
    PROXY_ROUTE_LEGACY_API_KEEPALIVE: "false",
    PROXY_ROUTE_OTHER_KEEPALIVE: "true",
    PROXY_ROUTE_THIRD_KEEPALIVE: "",
  }, routes);
  assert.deepEqual([...off], ["legacy-api"]);
  assert.deepEqual(problems, []);
  assert.deepEqual(
    readRouteKeepAlive({ PROXY_ROUTE_OTHER_KEEPALIVE: "maybe" }, routes)
      .problems,
    ["Invalid PROXY_ROUTE_OTHER_KEEPALIVE: expected true or false"],
  );
});
