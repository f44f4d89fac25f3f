/**
 * Starts a real InfluxDB 1.x (`influxd`) on free ports in a temporary folder, for the
 * suites that write to it and read the points back with InfluxQL.
 *
 * @module
 */
import { freePort } from "./_test_helpers.ts";
import { startServerProcess } from "./_test_server_process.ts";

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
  /** Every row of `measurement`, oldest first (`SELECT *`, time in epoch ms). */
  rows(measurement: string, db: string): Promise<Record<string, unknown>[]>;
  /** Polls {@linkcode Influxd.rows} until there are at least `count` (at most 15 s). */
  waitForRows(
    measurement: string,
    db: string,
    count: number,
  ): Promise<Record<string, unknown>[]>;
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

/** How {@linkcode startInfluxd} configures the server. */
export interface InfluxdOptions {
  /**
   * Turns authentication on with this admin user (created at start; `query` runs as
   * it). Writes without these credentials are refused with 401.
   */
  admin?: { username: string; password: string };
  /** Largest write body in bytes (`max-body-size`; larger ones get 413). */
  maxBodySize?: number;
}

/** Starts `influxd` (at `path`) and waits until it responds to `/ping`. */
export async function startInfluxd(
  path: string,
  options: InfluxdOptions = {},
): Promise<Influxd> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = await startServerProcess({
    path,
    prefix: "homewire-influxd-",
    readyUrl: `${url}/ping`,
    async args(dir) {
      await Deno.writeTextFile(
        `${dir}/influxdb.conf`,
        config(dir, port, options),
      );
      return ["-config", `${dir}/influxdb.conf`];
    },
  });
  const admin = options.admin;
  const headers: Record<string, string> = admin === undefined ? {} : {
    Authorization: `Basic ${btoa(`${admin.username}:${admin.password}`)}`,
  };
  const query = async (q: string, db?: string) => {
    const body = new URLSearchParams({ q, epoch: "ms" });
    if (db) body.set("db", db);
    const response = await fetch(`${url}/query`, {
      method: "POST",
      headers,
      body,
    });
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
  if (admin !== undefined) {
    // With no user yet, InfluxDB takes this one statement without credentials.
    await query(
      `CREATE USER "${admin.username}" WITH PASSWORD '${admin.password}' WITH ALL PRIVILEGES`,
    );
  }
  const rows = (measurement: string, db: string) =>
    select(`SELECT * FROM "${measurement}" ORDER BY time`, db);
  return {
    port,
    url,
    query,
    select,
    rows,
    async waitForRows(measurement, db, count) {
      const deadline = Date.now() + 15_000;
      while (true) {
        const found = await rows(measurement, db);
        if (found.length >= count) return found;
        if (Date.now() > deadline) {
          throw new Error(
            `${measurement}: ${found.length} rows, expected ${count}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async fieldTypes(measurement, db) {
      const rows = await select(`SHOW FIELD KEYS FROM "${measurement}"`, db);
      return Object.fromEntries(
        rows.map((row) => [String(row.fieldKey), String(row.fieldType)]),
      );
    },
    kill: server.kill,
    stop: server.stop,
  };
}

/** A minimal `influxd` configuration: everything in `dir`, HTTP on `port`. */
function config(dir: string, port: number, options: InfluxdOptions): string {
  return `
reporting-disabled = true
bind-address = "127.0.0.1:${freePort()}"
[meta]
  dir = "${dir}/meta"
[data]
  dir = "${dir}/data"
  wal-dir = "${dir}/wal"
  query-log-enabled = false
[http]
  bind-address = "127.0.0.1:${port}"
  log-enabled = false
  auth-enabled = ${options.admin !== undefined}
  max-body-size = ${options.maxBodySize ?? 25_000_000}
[monitor]
  store-enabled = false
[continuous_queries]
  enabled = false
[logging]
  level = "error"
`;
}
