/**
 * The process' metrics endpoint (`METRICS_PORT`): one registry for every role of the
 * process, the `process_*` series, `homewire_ready{role}`, and `GET /readyz` over
 * all the roles.
 *
 * @module
 */
import type { Log } from "../lib/log.ts";
import { createMetricsApp } from "../lib/metrics/metrics_app.ts";
import { registerProcessMetrics } from "../lib/metrics/process_metrics.ts";
import {
  createRegistry,
  type MetricsRegistry,
} from "../lib/metrics/registry.ts";
import { readinessProblem } from "../lib/readyz.ts";
import type { RunningRole } from "../lib/role.ts";
import { type RunningServer, serveApp } from "../lib/serve.ts";
import { VERSION } from "./version.ts";

/** The roles of the process as they start: each is "starting" until it is given. */
export interface RoleStates {
  /** Records a started role. */
  started(name: string, role: RunningRole): void;
  /** Each role's problem (`undefined` when ready), in the order they were named. */
  problems(): Promise<Map<string, string | undefined>>;
  /** All problems in one sentence, `undefined` when every role is ready. */
  problem(): Promise<string | undefined>;
}

/**
 * Returns the states of the roles `names`: a role not started yet is not ready
 * (`<name> is starting`); a started one is as its `ready()` says.
 *
 * @example
 * ```ts
 * const states = roleStates(["messages"]);
 * await states.problem(); // "messages is starting"
 * ```
 */
export function roleStates(names: readonly string[]): RoleStates {
  const running = new Map<string, RunningRole>();
  const problems = async () =>
    new Map(
      await Promise.all(names.map(async (name) => {
        const role = running.get(name);
        if (!role) return [name, `${name} is starting`] as const;
        if (!role.ready) return [name, undefined] as const;
        const problem = await readinessProblem(() => role.ready!());
        return [name, problem && `${name}: ${problem}`] as const;
      })),
    );
  return {
    started: (name, role) => running.set(name, role),
    problems,
    async problem() {
      const found = [...(await problems()).values()].filter((p) =>
        p !== undefined
      );
      return found.length === 0 ? undefined : found.join("; ");
    },
  };
}

/**
 * A registry with the `process_*` series, `homewire_build_info` and
 * `homewire_ready{role}` (1 when the role is ready, read at each scrape).
 */
export function processRegistry(states: RoleStates): MetricsRegistry {
  const registry = createRegistry();
  registerProcessMetrics(registry, { version: VERSION });
  const ready = registry.gauge<"role">({
    name: "homewire_ready",
    help:
      "1 when the role can do its work now (GET /readyz returns 200), 0 otherwise",
    labels: ["role"],
  });
  registry.beforeScrape(async () => {
    for (const [role, problem] of await states.problems()) {
      ready.set({ role }, problem === undefined ? 1 : 0);
    }
  });
  return registry;
}

/**
 * Serves `GET /metrics`, `GET /readyz` (every role of the process) and
 * `GET /healthz` on `METRICS_HOST`:`METRICS_PORT`.
 */
export function serveMetrics(options: {
  registry: MetricsRegistry;
  states: RoleStates;
  hostname: string;
  port: number;
  log: Log;
}): RunningServer {
  const app = createMetricsApp({
    registry: options.registry,
    ready: options.states.problem,
    log: options.log,
  });
  return serveApp(app, {
    hostname: options.hostname,
    port: options.port,
    hostSetting: "METRICS_HOST",
    portSetting: "METRICS_PORT",
    log: options.log,
    name: "metrics",
  });
}
