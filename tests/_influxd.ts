/**
 * Starts a real InfluxDB 1.x (`influxd`) on free ports in a temporary folder, for the
 * suites that write to it and read the points back with InfluxQL.
 *
 * @module
 */
import { freePort, waitForHttp } from "./_helpers.ts";

/** A running `influxd`. */
export interface Influxd {
  /** HTTP port on 127.0.0.1. */
  readonly port: number;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Runs an InfluxQL statement (`POST /query`) and returns the decoded reply. */
  query(q: string, db?: string): Promise<InfluxResult[]>;
  /** Rows of a `SELECT` as objects keyed by column (time in epoch ms). */
  select(q: string, db: string): Promise<Record<string, unknown>[]>;
  /** Field types of a measurement, from `SHOW FIELD KEYS`. */
  fieldTypes(measurement: string, db: string): Promise<Record<string, string>>;
  /** Sends a signal to the server (`SIGSTOP` / `SIGCONT` to pause it). */
  kill(signal: Deno.Signal): void;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/** One statement result of `/query`. */
export interface InfluxResult {
  error?: string;
  series?: { name: string; columns: string[]; values: unknown[][] }[];
}

/** Starts `influxd` (at `path`) and waits until it answers `/ping`. */
export async function startInfluxd(path: string): Promise<Influxd> {
  const dir = await Deno.makeTempDir({ prefix: "homewire-influxd-" });
  const port = freePort();
  const rpcPort = freePort();
  const config = `
reporting-disabled = true
bind-address = "127.0.0.1:${rpcPort}"
[meta]
  dir = "${dir}/meta"
[data]
  dir = "${dir}/data"
  wal-dir = "${dir}/wal"
  query-log-enabled = false
[http]
  bind-address = "127.0.0.1:${port}"
  log-enabled = false
[monitor]
  store-enabled = false
[continuous_queries]
  enabled = false
[logging]
  level = "error"
`;
  await Deno.writeTextFile(`${dir}/influxdb.conf`, config);
  const child = new Deno.Command(path, {
    args: ["-config", `${dir}/influxdb.conf`],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
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
    await waitForHttp(`${url}/ping`, 30_000);
  } catch (error) {
    await stop();
    throw error;
  }
  const query = async (q: string, db?: string) => {
    const body = new URLSearchParams({ q, epoch: "ms" });
    if (db) body.set("db", db);
    const response = await fetch(`${url}/query`, { method: "POST", body });
    const reply = await response.json();
    if (!response.ok) {
      throw new Error(`InfluxQL "${q}" failed: ${JSON.stringify(reply)}`);
    }
    const results = reply.results as InfluxResult[];
    const failed = results.find((r) => r.error);
    if (failed) throw new Error(`InfluxQL "${q}" failed: ${failed.error}`);
    return results;
  };
  const select = async (q: string, db: string) => {
    const [result] = await query(q, db);
    return (result?.series ?? []).flatMap((series) =>
      series.values.map((row) =>
        Object.fromEntries(series.columns.map((c, i) => [c, row[i]]))
      )
    );
  };
  return {
    port,
    url,
    query,
    select,
    async fieldTypes(measurement, db) {
      const rows = await select(`SHOW FIELD KEYS FROM "${measurement}"`, db);
      return Object.fromEntries(
        rows.map((row) => [String(row.fieldKey), String(row.fieldType)]),
      );
    },
    kill: (signal) => child.kill(signal),
    stop,
  };
}
