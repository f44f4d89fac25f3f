/**
 * A real forward proxy for the suites: Debian's `tinyproxy`, started in the
 * foreground with its own configuration on a free 127.0.0.1 port (never its system
 * service), its log read to tell which requests went through it.
 *
 * @module
 */
import { freePort, requireBinary } from "./_test_helpers.ts";

/** The `tinyproxy` binary, or the skip when it is absent (failing when CI=true). */
export const TINYPROXY = requireBinary("tinyproxy", ["/usr/bin/tinyproxy"]);

/** Options of {@linkcode startTinyproxy}. */
export interface TinyproxyOptions {
  /** `[user, password]` the proxy asks for (407 without them). */
  credentials?: [string, string];
}

/** A running tinyproxy. */
export interface Tinyproxy {
  /** `http://127.0.0.1:PORT` (no credentials). */
  readonly url: string;
  readonly port: number;
  /** The request lines it received so far (`GET http://... HTTP/1.1`, `CONNECT host:port HTTP/1.1`). */
  requests(): Promise<string[]>;
  /** Stops it and removes its folder. */
  stop(): Promise<void>;
}

/** Starts tinyproxy and waits until it accepts connections. */
export async function startTinyproxy(
  options: TinyproxyOptions = {},
): Promise<Tinyproxy> {
  const dir = await Deno.makeTempDir({ prefix: "homewire-tinyproxy-" });
  const port = freePort();
  const log = `${dir}/tinyproxy.log`;
  const lines = [
    `Port ${port}`,
    "Listen 127.0.0.1",
    "Timeout 30",
    `LogFile "${log}"`,
    "LogLevel Connect",
    "MaxClients 100",
    "Allow 127.0.0.1",
    ...(options.credentials
      ? [`BasicAuth ${options.credentials[0]} ${options.credentials[1]}`]
      : []),
  ];
  await Deno.writeTextFile(`${dir}/tinyproxy.conf`, `${lines.join("\n")}\n`);
  const child = new Deno.Command(TINYPROXY.path ?? "tinyproxy", {
    args: ["-d", "-c", `${dir}/tinyproxy.conf`],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const deadline = Date.now() + 10_000;
  while (true) {
    try {
      (await Deno.connect({ hostname: "127.0.0.1", port })).close();
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`tinyproxy did not listen on ${port}: ${error}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async requests() {
      const text = await Deno.readTextFile(log).catch(() => "");
      return [...text.matchAll(/Request \(file descriptor \d+\): (.*)$/gm)]
        .map((match) => match[1]!.trim());
    },
    async stop() {
      try {
        child.kill("SIGTERM");
      } catch {
        // already ended
      }
      await child.status;
      await Deno.remove(dir, { recursive: true });
    },
  };
}
