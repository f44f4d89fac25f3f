/**
 * Starts a real VictoriaMetrics on a free port in a temporary folder, for the v2
 * write path (`/api/v2/write` takes line protocol); points are read back through
 * `/api/v1/export`.
 *
 * @module
 */
import { freePort } from "./_test_helpers.ts";
import { startServerProcess } from "./_test_server_process.ts";

/** One exported series: metric labels, values and timestamps (epoch ms). */
export interface VictoriaSeries {
  metric: Record<string, string>;
  values: number[];
  timestamps: number[];
}

/** A running VictoriaMetrics. */
export interface Victoria {
  /** HTTP port on 127.0.0.1. */
  readonly port: number;
  /**
   * Every series matching `selector` (after a forced flush), polling until at least
   * `minSamples` values are visible (new series take a moment to become searchable).
   */
  exportSeries(
    selector: string,
    minSamples?: number,
  ): Promise<VictoriaSeries[]>;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/** How {@linkcode startVictoria} configures the server. */
export interface VictoriaOptions {
  /** HTTP basic authentication on every path (`-httpAuth.*`): 401 without it. */
  auth?: { username: string; password: string };
  /** More flags for its command line. */
  flags?: readonly string[];
}

/** Starts `victoria-metrics` (at `path`) and waits until it responds to `/health`. */
export async function startVictoria(
  path: string,
  options: VictoriaOptions = {},
): Promise<Victoria> {
  const auth = options.auth;
  const headers: Record<string, string> = auth === undefined ? {} : {
    Authorization: `Basic ${btoa(`${auth.username}:${auth.password}`)}`,
  };
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = await startServerProcess({
    path,
    prefix: "homewire-victoria-",
    readyUrl: `${url}/health`,
    args: (dir) => [
      `-storageDataPath=${dir}`,
      `-httpListenAddr=127.0.0.1:${port}`,
      "-loggerLevel=ERROR",
      "-search.disableCache",
      "-retentionPeriod=100y",
      ...(auth === undefined ? [] : [
        `-httpAuth.username=${auth.username}`,
        `-httpAuth.password=${auth.password}`,
      ]),
      ...options.flags ?? [],
    ],
  });
  return {
    port,
    async exportSeries(selector, minSamples = 1) {
      const deadline = Date.now() + 15_000;
      while (true) {
        const flushed = await fetch(`${url}/internal/force_flush`, {
          headers,
        });
        await flushed.body?.cancel();
        const response = await fetch(
          `${url}/api/v1/export?${new URLSearchParams({
            "match[]": selector,
          })}`,
          { headers },
        );
        const text = await response.text();
        if (!response.ok) throw new Error(`Export failed: ${text}`);
        const series = text.split("\n").filter((line) => line.trim() !== "")
          .map((line) => JSON.parse(line) as VictoriaSeries);
        const samples = series.reduce((n, s) => n + s.values.length, 0);
        if (samples >= minSamples || Date.now() > deadline) return series;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    },
    stop: server.stop,
  };
}
