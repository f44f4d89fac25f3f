/**
 * Starts a real Mosquitto broker (Debian's `mosquitto`) on a free port of 127.0.0.1,
 * anonymous access allowed, for the suites that publish to it.
 *
 * @module
 */
import { freePort } from "./_helpers.ts";

/** A running `mosquitto`. */
export interface Mosquitto {
  /** `mqtt://127.0.0.1:<port>`. */
  readonly url: string;
  /** The TCP port. */
  readonly port: number;
  /** Sends a signal (`SIGSTOP` / `SIGCONT` to pause it). */
  kill(signal: Deno.Signal): void;
  /** Stops the broker and removes its folder (once, however often called). */
  stop(): Promise<void>;
}

/**
 * Starts `mosquitto` at `path` (on `port`, default a free one) and waits until its
 * port accepts connections.
 */
export async function startMosquitto(
  path: string,
  options: { port?: number } = {},
): Promise<Mosquitto> {
  const dir = await Deno.makeTempDir({ prefix: "homewire-mosquitto-" });
  const port = options.port ?? freePort();
  await Deno.writeTextFile(
    `${dir}/mosquitto.conf`,
    `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`,
  );
  const child = new Deno.Command(path, {
    args: ["-c", `${dir}/mosquitto.conf`],
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
  const deadline = Date.now() + 15_000;
  while (true) {
    try {
      const connection = await Deno.connect({ hostname: "127.0.0.1", port });
      connection.close();
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`mosquitto did not listen on ${port}: ${error}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    kill(signal) {
      try {
        child.kill(signal);
      } catch {
        // already ended
      }
    },
    stop,
  };
}
