/**
 * One line per role: requests per second of the role (started through `main.ts`)
 * with its metrics on (`METRICS_PORT` set, so every request goes through the
 * metrics middleware and is scraped meanwhile) against the same role with them
 * off, in alternating rounds of the same run. The target is a ratio of 0.95 or more.
 *
 * @module
 */
import {
  freePort,
  type LoadOptions,
  measureAlternating,
  report,
  spawnRole,
  waitForHttp,
} from "./_runner.ts";

/** What {@linkcode metricsOnOff} measures. */
export interface MetricsOnOffOptions {
  /** The report line's name (`data-api GET /data rps, metrics on vs off`). */
  name: string;
  /** The role and its arguments. */
  args: string[];
  /** The role's environment, given its port. */
  env: (port: number) => Record<string, string>;
  /** The setting of the role's port (`DATA_API_PORT`). */
  portSetting: string;
  /** Prepares each started role, given its base URL (seeds records). @default none */
  prepare?: (base: string) => Promise<void>;
  /** The request loaded, given the role's base URL. */
  request: (base: string) => Omit<LoadOptions, "seconds">;
  /** Measured rounds. @default 3 */
  rounds?: number;
  /** Seconds per round. @default 10 */
  seconds?: number;
}

/**
 * Starts the role twice (metrics on, metrics off), loads both alternately, and
 * prints `NAME: ours <on>, peer <off>, ratio <on/off>`; a Prometheus-like scrape of
 * the metrics endpoint runs every second during the load.
 */
export async function metricsOnOff(
  options: MetricsOnOffOptions,
): Promise<void> {
  const onPort = freePort();
  const offPort = freePort();
  const metricsPort = freePort();
  const start = (port: number, extra: Record<string, string>) =>
    spawnRole(options.args, {
      env: {
        ...options.env(port),
        [options.portSetting]: String(port),
        LOG_LEVEL: "WARNING",
        ...extra,
      },
    });
  const on = start(onPort, {
    METRICS_PORT: String(metricsPort),
    METRICS_HOST: "127.0.0.1",
  });
  const off = start(offPort, {});
  let scraping = true;
  const scraper = (async () => {
    while (scraping) {
      try {
        await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      } catch {
        // not up yet
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  try {
    await waitForHttp(`http://127.0.0.1:${onPort}/healthz`);
    await waitForHttp(`http://127.0.0.1:${offPort}/healthz`);
    await waitForHttp(`http://127.0.0.1:${metricsPort}/healthz`);
    for (const port of [onPort, offPort]) {
      await options.prepare?.(`http://127.0.0.1:${port}`);
    }
    const targets = [onPort, offPort].map((port) =>
      options.request(`http://127.0.0.1:${port}`)
    );
    const results = await measureAlternating(targets, {
      rounds: options.rounds ?? 3,
      seconds: options.seconds ?? 10,
    });
    for (const [i, result] of results.entries()) {
      if (result.errors > 0) {
        throw new Error(
          `${result.errors} failed requests to ${targets[i]!.url}`,
        );
      }
    }
    const [withMetrics, without] = results.map((r) => Math.round(r.rps));
    report(options.name, withMetrics!, without!);
  } finally {
    scraping = false;
    await scraper;
    await Promise.all([on.stop(), off.stop()]);
  }
}
