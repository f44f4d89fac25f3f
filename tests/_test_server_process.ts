/**
 * A server binary started by a suite in its own temporary folder, waited for until it
 * responds, and stopped (folder removed) at the end.
 *
 * @module
 */
import { waitForHttp } from "./_test_helpers.ts";

/** A running server process. */
export interface ServerProcess {
  /** Sends a signal to the server (`SIGSTOP` / `SIGCONT` to pause it). */
  kill(signal: Deno.Signal): void;
  /** Kills the server (resuming it first if paused) and removes its folder, once. */
  stop(): Promise<void>;
}

/**
 * Runs `path` with `args(dir)` for a new temporary folder `dir` (made with `prefix`)
 * and waits until `readyUrl` responds, or `readyPort` of 127.0.0.1 accepts a
 * connection; on failure the server is stopped again.
 */
export async function startServerProcess(options: {
  path: string;
  prefix: string;
  args: (dir: string) => string[] | Promise<string[]>;
  readyUrl?: string;
  readyPort?: number;
}): Promise<ServerProcess> {
  const dir = await Deno.makeTempDir({ prefix: options.prefix });
  const child = new Deno.Command(options.path, {
    args: await options.args(dir),
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  let stopped: Promise<void> | undefined;
  const stop = () => stopped ??= end();
  const end = async () => {
    try {
      child.kill("SIGCONT");
      child.kill("SIGKILL");
    } catch {
      // already ended
    }
    await child.status;
    await Deno.remove(dir, { recursive: true });
  };
  try {
    if (options.readyUrl !== undefined) {
      await waitForHttp(options.readyUrl, 30_000);
    }
    if (options.readyPort !== undefined) {
      await waitForPort(options.readyPort, 30_000);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { kill: (signal) => child.kill(signal), stop };
}

/** Resolves once `port` of 127.0.0.1 accepts a connection; rejects after `timeoutMs`. */
async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      return;
    } catch (error) {
      if (Date.now() > deadline) {
        throw new Error(`Nothing listened on port ${port}: ${error}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
