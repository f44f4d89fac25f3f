/**
 * The `process_*` series every Prometheus client exposes, read at each scrape (from
 * `/proc/self` on Linux), and `homewire_build_info`.
 *
 * @module
 */
import process from "node:process";
import type { MetricsRegistry } from "./registry.ts";

/** What {@linkcode registerProcessMetrics} reads; the process' own by default. */
export interface ProcessSources {
  /** The text of a `/proc/self` file (`status`, `limits`), `undefined` if absent. */
  readProc(name: string): string | undefined;
  /** How many file descriptors are open, `undefined` if unknown. */
  openFds(): number | undefined;
  /** User and system CPU time used, in microseconds. */
  cpuUsage(): { user: number; system: number };
  /** When the process started, in seconds since the epoch. */
  startTime: number;
}

/** The sources of this process: `/proc/self`, `process.cpuUsage()`, `performance.timeOrigin`. */
export function processSources(): ProcessSources {
  return {
    readProc(name) {
      try {
        return Deno.readTextFileSync(`/proc/self/${name}`);
      } catch {
        return undefined;
      }
    },
    openFds() {
      try {
        let n = 0;
        for (const _ of Deno.readDirSync("/proc/self/fd")) n++;
        return n - 1; // the descriptor that reads the folder
      } catch {
        return undefined;
      }
    },
    cpuUsage: () => process.cpuUsage(),
    startTime: performance.timeOrigin / 1000,
  };
}

/**
 * Registers `process_cpu_seconds_total`, `process_resident_memory_bytes`,
 * `process_virtual_memory_bytes`, `process_open_fds`, `process_max_fds`,
 * `process_start_time_seconds` and `homewire_build_info{version}`, read before each
 * scrape. A series whose source this system lacks (no `/proc`) is left out.
 *
 * @example
 * ```ts
 * import { createRegistry } from "./registry.ts";
 *
 * const registry = createRegistry();
 * registerProcessMetrics(registry, { version: "0.1.0" });
 * await registry.render(); // ...process_resident_memory_bytes 51234816...
 * ```
 */
export function registerProcessMetrics(
  registry: MetricsRegistry,
  options: { version: string; sources?: ProcessSources },
): void {
  const sources = options.sources ?? processSources();
  registry.info({
    name: "homewire_build_info",
    help: "The homewire version this process runs (always 1)",
  }, { version: options.version });
  const cpu = registry.counter({
    name: "process_cpu_seconds_total",
    help: "Total user and system CPU time spent in seconds",
  });
  registry.gauge({
    name: "process_start_time_seconds",
    help: "Start time of the process since unix epoch in seconds",
  }).set({}, Math.floor(sources.startTime));
  const resident = registry.gauge({
    name: "process_resident_memory_bytes",
    help: "Resident memory size in bytes",
  });
  const virtual = registry.gauge({
    name: "process_virtual_memory_bytes",
    help: "Virtual memory size in bytes",
  });
  const open = registry.gauge({
    name: "process_open_fds",
    help: "Number of open file descriptors",
  });
  const max = registry.gauge({
    name: "process_max_fds",
    help: "Maximum number of open file descriptors",
  });
  const cpuSeries = cpu.child({});
  registry.beforeScrape(() => {
    const usage = sources.cpuUsage();
    const seconds = (usage.user + usage.system) / 1e6;
    cpuSeries.inc(seconds - cpuSeries.value());
    const status = sources.readProc("status") ?? "";
    const rss = kilobytes(status, "VmRSS");
    if (rss !== undefined) resident.set({}, rss);
    const size = kilobytes(status, "VmSize");
    if (size !== undefined) virtual.set({}, size);
    const fds = sources.openFds();
    if (fds !== undefined) open.set({}, fds);
    const limits = sources.readProc("limits");
    const limit = limits?.match(/^Max open files\s+(\d+)/m)?.[1];
    if (limit !== undefined) max.set({}, Number(limit));
  });
}

/** A `Name:  1234 kB` line of `/proc/self/status`, in bytes. */
function kilobytes(status: string, name: string): number | undefined {
  const match = status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, "m"));
  return match ? Number(match[1]) * 1024 : undefined;
}
