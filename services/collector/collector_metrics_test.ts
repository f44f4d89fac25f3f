import assert from "node:assert/strict";
import { createRegistry } from "../../lib/metrics/registry.ts";
import { collectorMetrics } from "./collector_metrics.ts";

Deno.test("collectorMetrics() reads the writer at each scrape, passes by outcome", async () => {
  const writer = {
    pending: 3,
    dropped: 1,
    written: 10,
    lastWriteAt: 1_700_000_000_500,
  };
  const registry = createRegistry();
  const metrics = collectorMetrics(
    registry.with({ role: "collector" }),
    writer,
  );
  assert.equal(metrics.readiness(), undefined);
  metrics.pass(4);
  metrics.pass(0);
  assert.match(metrics.readiness() ?? "", /collected no point/);
  let text = await registry.render();
  const at = (name: string) =>
    text.match(new RegExp(`^${name}\\{role="collector"\\} (\\S+)$`, "m"))?.[1];
  assert.equal(at("homewire_collector_points_written_total"), "10");
  assert.equal(at("homewire_collector_points_dropped_total"), "1");
  assert.equal(at("homewire_collector_points_buffered"), "3");
  assert.equal(
    at("homewire_collector_last_write_timestamp_seconds"),
    "1700000000.5",
  );
  assert.match(
    text,
    /^homewire_collector_passes_total\{role="collector",outcome="collected"\} 1$/m,
  );
  writer.written = 15;
  writer.pending = 0;
  text = await registry.render();
  assert.equal(at("homewire_collector_points_written_total"), "15");
  assert.equal(at("homewire_collector_points_buffered"), "0");
  metrics.pass(2);
  assert.equal(metrics.readiness(), undefined);
});
