/**
 * Load with `wrk` (Debian's package): the load generator of the proxy's comparison
 * with nginx. autocannon runs on one JavaScript thread and tops out near the rate
 * of the proxy itself, so against nginx it would measure autocannon; wrk is C,
 * spends far less per request, and is what the figures of the issue were taken with
 * (one thread, 50 connections).
 *
 * @module
 */
import type { LoadResult } from "./_runner.ts";

/** Options of {@linkcode wrkLoad}. */
export interface WrkOptions {
  /** Target URL (127.0.0.1 only). */
  url: string;
  /** Concurrent connections. @default 50 */
  connections?: number;
  /** Seconds of load. @default 5 */
  seconds?: number;
  /** wrk threads. @default 1 */
  threads?: number;
}

/** Whether `wrk` is installed. */
export function hasWrk(): boolean {
  try {
    return new Deno.Command("wrk", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    })
      .outputSync().code !== 127;
  } catch {
    return false;
  }
}

/** Runs `wrk --latency` on `options.url` and reads its requests/s, p99 and errors. */
export async function wrkLoad(options: WrkOptions): Promise<LoadResult> {
  if (!/^http:\/\/127\.0\.0\.1[:/]/.test(options.url)) {
    throw new Error(
      `Refusing to load "${options.url}": benchmarks only target 127.0.0.1`,
    );
  }
  const output = await new Deno.Command("wrk", {
    args: [
      "--latency",
      `-t${options.threads ?? 1}`,
      `-c${options.connections ?? 50}`,
      `-d${options.seconds ?? 5}s`,
      options.url,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const text = new TextDecoder().decode(output.stdout);
  if (!output.success) {
    throw new Error(`wrk failed for ${options.url}: ${text}`);
  }
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)\b/.exec(text);
  const scale = { us: 0.001, ms: 1, s: 1000 }[p99?.[2] as "us" | "ms" | "s"];
  const non2xx = Number(
    /Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0,
  );
  const socket =
    /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/
      .exec(text);
  const errors = non2xx +
    (socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0);
  return { rps, p99: Number(p99?.[1] ?? NaN) * (scale ?? NaN), errors };
}

/**
 * Measures the targets with wrk in alternating rounds after a warm-up of each, and
 * returns each target's best round, as `measureAlternating` of `_runner.ts` does.
 */
export async function wrkAlternating(
  targets: WrkOptions[],
  options: { rounds: number; seconds: number; warmupSeconds?: number },
): Promise<LoadResult[]> {
  for (const target of targets) {
    await wrkLoad({ ...target, seconds: options.warmupSeconds ?? 2 });
  }
  const best = targets.map(() => ({ rps: 0, p99: Infinity, errors: 0 }));
  for (let round = 0; round < options.rounds; round++) {
    for (const [i, target] of targets.entries()) {
      const result = await wrkLoad({ ...target, seconds: options.seconds });
      const kept = best[i]!;
      kept.rps = Math.max(kept.rps, result.rps);
      kept.p99 = Math.min(kept.p99, result.p99);
      kept.errors += result.errors;
    }
  }
  return best;
}
