import assert from "node:assert/strict";
import { createRegistry } from "../../lib/metrics/registry.ts";
import { createMetrics } from "./metrics.ts";

function setup() {
  const registry = createRegistry();
  return {
    registry,
    metrics: createMetrics(registry.with({ role: "forwarder" })),
  };
}

Deno.test("createMetrics()", async (t) => {
  await t.step("counts every counter under its conventional name", async () => {
    const { registry, metrics } = setup();
    metrics.count("received", 3);
    metrics.count("deleted");
    metrics.count("failed", 2);
    const text = await registry.render();
    assert.match(
      text,
      /^homewire_forwarder_messages_received_total\{role="forwarder"\} 3$/m,
    );
    assert.match(
      text,
      /^homewire_forwarder_messages_deleted_total\{role="forwarder"\} 1$/m,
    );
    assert.match(
      text,
      /^homewire_forwarder_post_failures_total\{role="forwarder"\} 2$/m,
    );
    assert.match(
      text,
      /^homewire_forwarder_post_retries_total\{role="forwarder"\} 0$/m,
    );
    assert.doesNotMatch(text, /^forwarder_/m);
    assert.equal(metrics.value("received"), 3);
  });

  await t.step("puts post durations in cumulative buckets", async () => {
    const { registry, metrics } = setup();
    metrics.observePost(20);
    metrics.observePost(700);
    const text = await registry.render();
    assert.match(text, /_bucket\{role="forwarder",le="0.01"\} 0$/m);
    assert.match(text, /_bucket\{role="forwarder",le="0.025"\} 1$/m);
    assert.match(text, /_bucket\{role="forwarder",le="1.0"\} 2$/m);
    assert.match(text, /_bucket\{role="forwarder",le="\+Inf"\} 2$/m);
    assert.match(
      text,
      /^homewire_forwarder_post_duration_seconds_count\{role="forwarder"\} 2$/m,
    );
  });

  await t.step("the last receive gives readiness and its time", async () => {
    const { registry, metrics } = setup();
    assert.equal(metrics.readiness(), undefined);
    metrics.receive("connection refused");
    assert.equal(
      metrics.readiness(),
      "The last receive from the queue failed: connection refused",
    );
    const before = Date.now() / 1000;
    metrics.receive();
    assert.equal(metrics.readiness(), undefined);
    const text = await registry.render();
    assert.match(
      text,
      /^homewire_forwarder_receive_failures_total\{role="forwarder"\} 1$/m,
    );
    const at = Number(
      text.match(
        /^homewire_forwarder_last_receive_timestamp_seconds\{role="forwarder"\} (\S+)$/m,
      )?.[1],
    );
    assert.ok(at >= before && at <= Date.now() / 1000 + 1);
  });
});
