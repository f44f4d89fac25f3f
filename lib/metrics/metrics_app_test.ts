import assert from "node:assert/strict";
import { createLog } from "../log.ts";
import { createRegistry } from "./registry.ts";
import { createMetricsApp } from "./metrics_app.ts";

function app(ready: () => string | undefined = () => undefined) {
  const registry = createRegistry();
  registry.with({ role: "r" }).counter({ name: "jobs_total", help: "Jobs" })
    .inc({});
  return createMetricsApp({ registry, ready, log: createLog("metrics") });
}

Deno.test("createMetricsApp() responds to /metrics in the format asked for", async () => {
  let response = await app().request("/metrics");
  assert.equal(
    response.headers.get("content-type"),
    "text/plain; version=0.0.4; charset=utf-8",
  );
  assert.match(await response.text(), /^jobs_total\{role="r"\} 1$/m);
  response = await app().request("/metrics", {
    headers: {
      accept:
        "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5",
    },
  });
  assert.equal(
    response.headers.get("content-type"),
    "application/openmetrics-text; version=1.0.0; charset=utf-8",
  );
  const text = await response.text();
  assert.match(text, /^# TYPE jobs counter$/m);
  assert.ok(text.endsWith("# EOF\n"));
});

Deno.test("createMetricsApp() responds to /readyz and /healthz", async () => {
  let response = await app(() => "proxy: is starting").request("/readyz");
  assert.equal(response.status, 503);
  assert.deepEqual(await response.json(), { message: "proxy: is starting" });
  response = await app().request("/readyz");
  assert.equal(response.status, 200);
  response = await app(() => "no").request("/healthz");
  assert.equal(response.status, 200);
});
