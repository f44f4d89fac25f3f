/**
 * `promtool check metrics` (Debian's `prometheus`) accepts what the registry writes
 * with every role's series and hostile label values: a sensor name with a newline,
 * quotes and a backslash, a route with quotes, a path-like value, non-ASCII text;
 * and refuses a deliberately broken line, so the check is known to bite.
 */
import assert from "node:assert/strict";
import { requireBinary } from "./_test_helpers.ts";
import { createRegistry } from "../lib/metrics/registry.ts";
import { httpMetrics } from "../lib/metrics/http_metrics.ts";
import { Hono } from "hono";
import { ROLES } from "../program/roles.ts";
import { processRegistry, roleStates } from "../program/metrics_endpoint.ts";
import { sensorGauges } from "../services/collector/sensor_gauges.ts";
import { float } from "../services/collector/sample.ts";

const promtool = requireBinary("promtool");

async function check(text: string): Promise<{ ok: boolean; said: string }> {
  const child = new Deno.Command(promtool.path!, {
    args: ["check", "metrics"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const output = await child.output();
  const said = new TextDecoder().decode(output.stdout) +
    new TextDecoder().decode(output.stderr);
  return { ok: output.success && said.trim() === "", said };
}

Deno.test({
  name: "promtool check metrics accepts every series with hostile label values",
  ignore: promtool.ignore,
  async fn() {
    assert.ok(promtool.path, "promtool is not installed (CI=true)");
    const registry = processRegistry(roleStates(["messages", 'a"b\nc']));
    for (const role of ROLES) role.series?.(registry.with({ role: role.name }));
    const hostile = 'attic "north"\n\\ pièce ☃ {le="1"}';
    sensorGauges(registry.with({ role: "collector" }))([{
      measurement: "home_temperature",
      location: "in",
      sensor: hostile,
      time: new Date(),
      fields: { value: float(21.5) },
    }]);
    registry.with({ role: "proxy" }).counter<"route" | "outcome">({
      name: "homewire_proxy_upstream_requests_total",
      help: "Requests sent upstream",
      labels: ["route", "outcome"],
    }).inc({ route: 'say "hi"', outcome: "2xx" });
    const app = new Hono();
    app.use(httpMetrics(registry.with({ role: "messages" })));
    app.get("/api/message/:id", (c) => c.text("x"));
    await app.request('/api/message/"%0a..%2f');
    await app.request("/../../etc/passwd%00");
    const text = await registry.render();
    assert.ok(
      text.includes('sensor="attic \\"north\\"\\n\\\\ pièce ☃ {le=\\"1\\"}"'),
    );
    assert.ok(text.includes('homewire_ready{role="a\\"b\\nc"} 0'));
    const checked = await check(text);
    assert.ok(checked.ok, `${checked.said}\n${text}`);
  },
});

Deno.test({
  name: "promtool check metrics refuses an unescaped quote (the check bites)",
  ignore: promtool.ignore,
  async fn() {
    assert.ok(promtool.path, "promtool is not installed (CI=true)");
    const registry = createRegistry();
    registry.gauge<"sensor">({ name: "x", help: "x", labels: ["sensor"] })
      .set({ sensor: "a" }, 1);
    const text = await registry.render();
    assert.ok((await check(text)).ok);
    const broken = text.replace('sensor="a"', 'sensor="a"b"');
    assert.equal((await check(broken)).ok, false);
  },
});
