import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/testing.ts";
import { createMetrics } from "./metrics.ts";
import { createMetricsApp } from "./metrics_app.ts";

Deno.test("createMetrics()", async (t) => {
  await t.step("counts and renders every counter", () => {
    const metrics = createMetrics();
    metrics.count("received", 3);
    metrics.count("deleted");
    const text = metrics.render();
    assert.match(text, /^forwarder_received_total 3$/m);
    assert.match(text, /^forwarder_deleted_total 1$/m);
    assert.match(text, /^forwarder_failed_total 0$/m);
    assert.match(text, /^# TYPE forwarder_retried_total counter$/m);
  });
  await t.step("puts post durations in cumulative buckets", () => {
    const metrics = createMetrics();
    metrics.observePost(20);
    metrics.observePost(700);
    const text = metrics.render();
    assert.match(text, /_bucket\{le="0.01"\} 0$/m);
    assert.match(text, /_bucket\{le="0.025"\} 1$/m);
    assert.match(text, /_bucket\{le="1"\} 2$/m);
    assert.match(text, /_bucket\{le="\+Inf"\} 2$/m);
    assert.match(text, /^forwarder_post_duration_seconds_count 2$/m);
    assert.match(text, /^forwarder_post_duration_seconds_sum 0.72$/m);
  });
});

Deno.test("createMetricsApp() serves /metrics and /healthz", async () => {
  const metrics = createMetrics();
  metrics.count("posted", 2);
  const app = createMetricsApp({ metrics, log: createMemoryLog() });
  const response = await app.request("/metrics");
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /^text\/plain/);
  assert.match(await response.text(), /^forwarder_posted_total 2$/m);
  const health = await app.request("/healthz");
  assert.deepEqual(await health.json(), { status: "ok" });
});
