/**
 * Shared pieces of the benchmarks: peers as subprocesses, bounded HTTP load from a
 * separate process, and the one-line report format
 * `name: ours X, peer Y, ratio X/Y`.
 *
 * @module
 */

/** Prints one comparison line and returns the ratio ours/peer. */
export function report(
  name: string,
  ours: number,
  peer: number,
  unit = "",
): number {
  const ratio = ours / peer;
  const fmt = (n: number) =>
    (Number.isInteger(n) ? String(n) : n.toFixed(2)) + unit;
  console.log(
    `${name}: ours ${fmt(ours)}, peer ${fmt(peer)}, ratio ${ratio.toFixed(2)}`,
  );
  return ratio;
}

/** Prints one measured value against a limit: `name: ours X, limit Y, ratio X/Y`. */
export function reportLimit(
  name: string,
  ours: number,
  limit: number,
  unit = "",
): number {
  const ratio = ours / limit;
  console.log(
    `${name}: ours ${ours.toFixed(2)}${unit}, limit ${limit}${unit}, ratio ${
      ratio.toFixed(2)
    }`,
  );
  return ratio;
}

/** A background process started by a benchmark. */
export interface BenchProcess {
  /** The child process. */
  readonly child: Deno.ChildProcess;
  /** Stops it (SIGTERM, then SIGKILL after 5 s) and waits for its end. */
  stop(): Promise<void>;
  /** Peak resident set size seen so far, in MB (sampled every 100 ms). */
  peakRssMb(): number;
  /** Every RSS sample so far, in MB. */
  rssSamples(): number[];
  /**
   * The peak sample's RSS split, in MB: `anon`, memory the process owns (heap,
   * stacks, malloc), and `file`, pages of files it maps (chiefly the Deno executable),
   * which the kernel shares with other processes and can drop and read again.
   */
  peakRssParts(): { anon: number; file: number };
}

/** Starts a command in the background, sampling its RSS from /proc. */
export function spawn(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; quiet?: boolean } = {},
): BenchProcess {
  const child = new Deno.Command(command, {
    args,
    env: options.env,
    cwd: options.cwd,
    stdin: "null",
    stdout: options.quiet === false ? "inherit" : "null",
    stderr: options.quiet === false ? "inherit" : "null",
  }).spawn();
  const samples: number[] = [];
  let peak = 0;
  let peakParts = { anon: 0, file: 0 };
  const mb = (status: string, field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  const sampler = setInterval(() => {
    try {
      const status = Deno.readTextFileSync(`/proc/${child.pid}/status`);
      const rss = mb(status, "VmRSS");
      if (rss === 0) return;
      if (rss > peak) {
        peak = rss;
        peakParts = {
          anon: mb(status, "RssAnon"),
          file: mb(status, "RssFile"),
        };
      }
      samples.push(rss);
    } catch {
      // process gone
    }
  }, 100);
  let ended = false;
  child.status.then(() => {
    ended = true;
    clearInterval(sampler);
  });
  return {
    child,
    peakRssMb: () => peak,
    rssSamples: () => [...samples],
    peakRssParts: () => ({ ...peakParts }),
    async stop() {
      clearInterval(sampler);
      if (ended) return;
      try {
        child.kill("SIGTERM");
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch {
          // ended meanwhile
        }
      }, 5000);
      await child.status;
      clearTimeout(timer);
    },
  };
}

/** Options of {@linkcode spawnDeno} and {@linkcode spawnRole}. */
export interface SpawnDenoOptions {
  env?: Record<string, string>;
  cwd?: string;
  quiet?: boolean;
  /** V8 flags, comma-separated, given as `--v8-flags`. @default none */
  v8Flags?: string;
}

/** Starts `deno run -A <script> ...args` in the background. */
export function spawnDeno(
  script: string,
  args: string[] = [],
  options: SpawnDenoOptions = {},
): BenchProcess {
  const { v8Flags, ...rest } = options;
  return spawn(Deno.execPath(), [
    "run",
    "-A",
    "--unstable-cron",
    ...(v8Flags ? [`--v8-flags=${v8Flags}`] : []),
    script,
    ...args,
  ], rest);
}

/**
 * The V8 flags `deno task start` runs the roles with: the value of its `--v8-flags=`
 * in `deno.json`, or `""` when it has none.
 */
export function startV8Flags(): string {
  const config = JSON.parse(
    Deno.readTextFileSync(new URL("../deno.json", import.meta.url)),
  ) as { tasks: Record<string, string> };
  const flag = config.tasks.start?.split(/\s+/)
    .find((word) => word.startsWith("--v8-flags="));
  return flag?.slice("--v8-flags=".length) ?? "";
}

/**
 * The V8 flags the benchmarks run the roles with: `BENCH_V8_FLAGS` when it is set
 * (set but empty: V8's own defaults), otherwise those of `deno task start`.
 */
export function roleV8Flags(): string {
  return Deno.env.get("BENCH_V8_FLAGS") ?? startV8Flags();
}

/**
 * `--v8-flags` with {@linkcode roleV8Flags}, for a bare `Deno.serve` compared with a
 * role: the runtime as the role has it, so that only the code differs.
 */
export function roleV8Args(): string[] {
  const flags = roleV8Flags();
  return flags ? [`--v8-flags=${flags}`] : [];
}

/**
 * Starts `main.ts` with `args` in the background with the V8 flags of `deno task start`
 * ({@linkcode roleV8Flags}), unless `options.v8Flags` says others.
 */
export function spawnRole(
  args: string[],
  options: SpawnDenoOptions = {},
): BenchProcess {
  return spawnDeno(new URL("../main.ts", import.meta.url).pathname, args, {
    v8Flags: roleV8Flags(),
    ...options,
  });
}

export { freePort, waitForHttp } from "../tests/_test_helpers.ts";

/** Result of an HTTP load run. */
export interface LoadResult {
  /** Requests per second (average). */
  rps: number;
  /** 99th percentile latency in ms. */
  p99: number;
  /** Responses with a status outside 2xx, plus errors and time-outs. */
  errors: number;
}

/** Options of {@linkcode load}. */
export interface LoadOptions {
  /** Target URL (127.0.0.1 only). */
  url: string;
  /** Concurrent connections. @default 50 */
  connections?: number;
  /** Seconds of load. @default 10 */
  seconds?: number;
  /** Method. @default "GET" */
  method?: string;
  /** Request body. */
  body?: string;
  /** Request headers. */
  headers?: Record<string, string>;
  /** Requests in all, instead of `seconds` of load. */
  amount?: number;
  /** Requests each connection sends in turn (paths relative to `url`). */
  requests?: LoadRequest[];
}

/** One request of {@linkcode LoadOptions.requests}. */
export interface LoadRequest {
  /** Method. @default "GET" */
  method?: string;
  /** Path and query. */
  path: string;
  /** Request body. */
  body?: string;
  /** Request headers. */
  headers?: Record<string, string>;
}

/**
 * Runs a bounded HTTP load with `npm:autocannon` in a separate process, so the load
 * generator does not share the server's event loop.
 */
export async function load(options: LoadOptions): Promise<LoadResult> {
  if (!/^http:\/\/127\.0\.0\.1[:/]/.test(options.url)) {
    throw new Error(
      `Refusing to load "${options.url}": benchmarks only target 127.0.0.1`,
    );
  }
  const script = new URL("./_autocannon.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script, JSON.stringify(options)],
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!output.success) throw new Error(`autocannon failed for ${options.url}`);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

/** Options of {@linkcode measureAlternating}. */
export interface AlternatingOptions {
  /** Measured rounds per target. */
  rounds: number;
  /** Seconds of load per round. */
  seconds: number;
  /** Seconds of unmeasured warm-up load per target first. @default 2 */
  warmupSeconds?: number;
}

/**
 * Measures the targets in alternating rounds (ours, peer, ours, peer, ...) after a
 * warm-up of each, and returns each target's best round (highest requests per
 * second, lowest p99; `errors` sums every round), so a drift of the machine's speed
 * during the run does not favour either side.
 */
export async function measureAlternating(
  targets: LoadOptions[],
  options: AlternatingOptions,
): Promise<LoadResult[]> {
  const warmup = options.warmupSeconds ?? 2;
  for (const target of targets) await load({ ...target, seconds: warmup });
  const best = targets.map(() => ({ rps: 0, p99: Infinity, errors: 0 }));
  for (let round = 0; round < options.rounds; round++) {
    for (const [i, target] of targets.entries()) {
      const result = await load({ ...target, seconds: options.seconds });
      const kept = best[i]!;
      kept.rps = Math.max(kept.rps, result.rps);
      kept.p99 = Math.min(kept.p99, result.p99);
      kept.errors += result.errors;
    }
  }
  return best;
}
