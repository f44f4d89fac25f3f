import assert from "node:assert/strict";
import { createRegistry } from "./registry.ts";
import {
  type ProcessSources,
  processSources,
  registerProcessMetrics,
} from "./process_metrics.ts";

Deno.test("registerProcessMetrics() reads the sources at each scrape", async () => {
  let user = 1_500_000;
  const sources: ProcessSources = {
    readProc: (name) =>
      ({
        status: "Name:\tdeno\nVmSize:\t  2000 kB\nVmRSS:\t    100 kB\n",
        limits: "Limit  Soft Limit  Hard Limit  Units\n" +
          "Max open files            1024                 524288               files\n",
      })[name],
    openFds: () => 12,
    cpuUsage: () => ({ user, system: 500_000 }),
    startTime: 1_700_000_000.75,
  };
  const registry = createRegistry();
  registerProcessMetrics(registry, { version: "1.2.3", sources });
  let text = await registry.render();
  assert.match(text, /^process_cpu_seconds_total 2$/m);
  assert.match(text, /^process_resident_memory_bytes 102400$/m);
  assert.match(text, /^process_virtual_memory_bytes 2048000$/m);
  assert.match(text, /^process_open_fds 12$/m);
  assert.match(text, /^process_max_fds 1024$/m);
  assert.match(text, /^process_start_time_seconds 1700000000$/m);
  assert.match(text, /^homewire_build_info\{version="1.2.3"\} 1$/m);
  user += 1_000_000;
  text = await registry.render();
  assert.match(text, /^process_cpu_seconds_total 3$/m);
});

Deno.test("registerProcessMetrics() leaves out what the system lacks", async () => {
  const registry = createRegistry();
  registerProcessMetrics(registry, {
    version: "1",
    sources: {
      readProc: () => undefined,
      openFds: () => undefined,
      cpuUsage: () => ({ user: 0, system: 0 }),
      startTime: 0,
    },
  });
  const text = await registry.render();
  assert.doesNotMatch(text, /^process_open_fds /m);
  assert.doesNotMatch(text, /^process_resident_memory_bytes /m);
});

Deno.test("processSources() reads this process on Linux", () => {
  const sources = processSources();
  if (Deno.build.os !== "linux") return;
  assert.match(sources.readProc("status") ?? "", /VmRSS/);
  assert.ok((sources.openFds() ?? 0) > 2);
  assert.ok(sources.startTime > 1_600_000_000);
  assert.ok(sources.startTime <= Date.now() / 1000);
});
