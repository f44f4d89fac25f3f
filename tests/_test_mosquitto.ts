/**
 * Starts a real Mosquitto broker (Debian's `mosquitto`) on a free port of 127.0.0.1,
 * anonymous access allowed, for the suites that publish to it.
 *
 * @module
 */
import { freePort } from "./_test_helpers.ts";
import { startServerProcess } from "./_test_server_process.ts";

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
  const port = options.port ?? freePort();
  const server = await startServerProcess({
    path,
    prefix: "homewire-mosquitto-",
    args: async (dir) => {
      await Deno.writeTextFile(
        `${dir}/mosquitto.conf`,
        `listener ${port} 127.0.0.1\nallow_anonymous true\npersistence false\n`,
      );
      return ["-c", `${dir}/mosquitto.conf`];
    },
    readyPort: port,
  });
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    kill(signal) {
      try {
        server.kill(signal);
      } catch {
        // already ended
      }
    },
    stop: server.stop,
  };
}
