/**
 * Helpers for the suites that run `main.ts` as a subprocess or need a server binary.
 *
 * @module
 */

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const ROOT = new URL("..", import.meta.url).pathname;

/** Returns a TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/**
 * Looks up a server binary a suite needs. On a developer machine without it, the suite
 * is skipped with a printed reason; when `CI=true` it must run, so `ignore` stays false
 * and the test fails on the missing binary.
 */
export function requireBinary(
  name: string,
  paths: string[] = [],
): { path?: string; ignore: boolean } {
  const candidates = [
    ...paths,
    ...(Deno.env.get("PATH") ?? "").split(":").map((d) => `${d}/${name}`),
  ];
  const path = candidates.find((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });
  if (path) return { path, ignore: false };
  if (Deno.env.get("CI") === "true") return { ignore: false };
  console.warn(
    `Skipping the suites that need ${name}: not installed (bash .ci/run installs it)`,
  );
  return { ignore: true };
}

/** A `main.ts` subprocess with its output captured line by line. */
export interface MainProcess {
  /** The child process. */
  readonly child: Deno.ChildProcess;
  /** Lines written to standard output so far. */
  readonly stdout: string[];
  /** Lines written to standard error so far. */
  readonly stderr: string[];
  /** Waits until a line of stdout or stderr matches `pattern`; returns that line. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Sends `signal` (default SIGTERM) and resolves with the exit code once it ends. */
  stop(signal?: Deno.Signal): Promise<number>;
  /** Resolves with the exit code when the process ends by itself. */
  exited(): Promise<number>;
}

/** Options of {@linkcode startMain}. */
export interface StartMainOptions {
  /** Environment of the child; it does not inherit ours except PATH and HOME. */
  env?: Record<string, string>;
  /** Working directory. @default a new empty temporary folder (so no .env is found) */
  cwd?: string;
  /**
   * The command that stands for `deno`, with its first arguments: an emulator and the
   * Deno it runs, for the aarch64 suite. @default [the Deno running the tests]
   */
  runtime?: string[];
}

/**
 * Starts `deno run -A main.ts ...args` as a user would, with a clean environment.
 */
export function startMain(
  args: string[],
  options: StartMainOptions = {},
): MainProcess {
  const cwd = options.cwd ?? Deno.makeTempDirSync({ prefix: "homewire-test-" });
  const [command = Deno.execPath(), ...prefix] = options.runtime ?? [];
  const child = new Deno.Command(command, {
    args: [
      ...prefix,
      "run",
      "-A",
      "--unstable-cron",
      `--config=${ROOT}deno.json`,
      MAIN,
      ...args,
    ],
    cwd,
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? "/tmp",
      DENO_DIR: Deno.env.get("DENO_DIR") ??
        `${Deno.env.get("HOME") ?? "/root"}/.cache/deno`,
      NO_COLOR: "1",
      ...options.env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout: string[] = [];
  const stderr: string[] = [];
  const waiters = new Set<
    { pattern: RegExp; resolve: (line: string) => void }
  >();
  const pump = async (stream: ReadableStream<Uint8Array>, lines: string[]) => {
    let rest = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop() ?? "";
      for (const line of parts) {
        lines.push(line);
        for (const waiter of waiters) {
          if (waiter.pattern.test(line)) {
            waiters.delete(waiter);
            waiter.resolve(line);
          }
        }
      }
    }
    if (rest) lines.push(rest);
  };
  const pumped = Promise.all([
    pump(child.stdout, stdout),
    pump(child.stderr, stderr),
  ]);
  const status = child.status.then(async (s) => {
    await pumped;
    return s.code;
  });
  return {
    child,
    stdout,
    stderr,
    waitFor(pattern, timeoutMs = 20_000) {
      const seen = [...stdout, ...stderr].find((line) => pattern.test(line));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = {
          pattern,
          resolve: (line: string) => {
            clearTimeout(timer);
            resolve(line);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(
              `No line matching ${pattern} within ${timeoutMs} ms; output:\n${
                [...stdout, ...stderr].join("\n")
              }`,
            ),
          );
        }, timeoutMs);
        waiters.add(waiter);
        status.then(() => {
          if (waiters.delete(waiter)) {
            clearTimeout(timer);
            reject(
              new Error(
                `Process ended before a line matched ${pattern}; output:\n${
                  [...stdout, ...stderr].join("\n")
                }`,
              ),
            );
          }
        });
      });
    },
    async stop(signal = "SIGTERM") {
      try {
        child.kill(signal);
      } catch {
        // already ended
      }
      return await status;
    },
    exited: () => status,
  };
}

/** Polls `url` until it responds (any status) or `timeoutMs` passes. */
export async function waitForHttp(
  url: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    try {
      const response = await fetch(url);
      await response.body?.cancel();
      return;
    } catch (error) {
      if (Date.now() > deadline) {
        throw new Error(`${url} did not respond within ${timeoutMs} ms`, {
          cause: error,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Waits for a role's "listening on" line and returns its URL (useful with port 0).
 *
 * @example
 * ```ts
 * const base = await listeningUrl(startMain(["table", "0", "127.0.0.1", "false"]), "table");
 * ```
 */
export async function listeningUrl(
  main: MainProcess,
  role: string,
): Promise<string> {
  const line = await main.waitFor(new RegExp(`${role} listening on http://`));
  return /listening on (http:\/\/\S+)/.exec(line)![1]!;
}

/**
 * Makes a fake Linux IIO tree with one LPS25H pressure device reading 101.325 kPa,
 * for `PRESSURE_IIO_ROOT`; returns its folder (remove it when done).
 */
export async function makeFakeIio(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "homewire-iio-" });
  await Deno.mkdir(`${root}/iio:device0`);
  await Deno.writeTextFile(`${root}/iio:device0/name`, "lps25h\n");
  await Deno.writeTextFile(
    `${root}/iio:device0/in_pressure_input`,
    "101.325\n",
  );
  return root;
}
