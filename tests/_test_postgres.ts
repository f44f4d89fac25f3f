/**
 * Starts a real PostgreSQL (Debian's `postgresql` package) in a temporary folder on
 * a free port, for the suites of the `messages` role on PostgreSQL. `initdb` and
 * `postgres` refuse to run as root: as root they run as the `postgres` user
 * through `runuser`.
 *
 * @module
 */
import { freePort } from "./_test_helpers.ts";

/** The user and password of the test cluster's superuser. */
const USER = "homewire";
const PASSWORD = "s3cret-pass:word";

/** Where PostgreSQL's binaries are, or `undefined` when it is not installed. */
export function findPostgresBin(): string | undefined {
  let versions: string[] = [];
  try {
    versions = [...Deno.readDirSync("/usr/lib/postgresql")]
      .map((entry) => entry.name)
      .sort((a, b) => Number(b) - Number(a));
  } catch {
    return undefined;
  }
  return versions.map((v) => `/usr/lib/postgresql/${v}/bin`).find((bin) => {
    try {
      return Deno.statSync(`${bin}/postgres`).isFile &&
        Deno.statSync(`${bin}/initdb`).isFile;
    } catch {
      return false;
    }
  });
}

/**
 * The PostgreSQL binaries a suite needs: skipped with a printed reason on a machine
 * without them, failing (not ignored) when `CI=true`.
 */
export function requirePostgres(): { bin?: string; ignore: boolean } {
  const bin = findPostgresBin();
  if (bin) return { bin, ignore: false };
  if (Deno.env.get("CI") === "true") return { ignore: false };
  console.warn(
    "Skipping the PostgreSQL suites: /usr/lib/postgresql/*/bin not found (scripts/install_deps.sh installs it)",
  );
  return { ignore: true };
}

/** A running PostgreSQL cluster. */
export interface Postgres {
  /** Its port on 127.0.0.1. */
  readonly port: number;
  /** The password in {@linkcode Postgres.url} (tests check it never shows). */
  readonly password: string;
  /** `postgres://homewire:<password>@127.0.0.1:<port>/<database>`. */
  url(database?: string): string;
  /** Creates a database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Runs SQL with `psql` as the superuser; returns its standard output. */
  psql(sql: string, database?: string): Promise<string>;
  /** Stops the server (fast shutdown), keeping its folder, to start it again. */
  pause(): Promise<void>;
  /** Starts the server again on the same port and folder. */
  resume(): Promise<void>;
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/** Runs `initdb` into a new temporary folder and starts `postgres` on a free port. */
export async function startPostgres(bin: string): Promise<Postgres> {
  const dir = await Deno.makeTempDir({ prefix: "homewire-pg-" });
  const data = `${dir}/data`;
  const asRoot = Deno.uid() === 0;
  if (asRoot) await run("chown", ["postgres:postgres", dir]);
  await Deno.chmod(dir, 0o755);
  const asServer = (command: string, args: string[]) =>
    asRoot
      ? run("runuser", ["-u", "postgres", "--", command, ...args])
      : run(command, args);
  await Deno.writeTextFile(`${dir}/pw`, PASSWORD);
  if (asRoot) await run("chown", ["postgres:postgres", `${dir}/pw`]);
  await asServer(`${bin}/initdb`, [
    "-D",
    data,
    "-U",
    USER,
    `--pwfile=${dir}/pw`,
    "-A",
    "scram-sha-256",
    "-E",
    "UTF8",
    "--locale=C.UTF-8",
    "--no-sync",
  ]);
  const port = freePort();
  let server: Deno.ChildProcess | undefined;
  const start = async () => {
    const args = [
      `${bin}/postgres`,
      "-D",
      data,
      "-p",
      String(port),
      "-c",
      "listen_addresses=127.0.0.1",
      "-c",
      `unix_socket_directories=${dir}`,
      "-c",
      "fsync=off",
      "-c",
      "max_connections=200",
    ];
    server = new Deno.Command(asRoot ? "runuser" : args[0]!, {
      args: asRoot ? ["-u", "postgres", "--", ...args] : args.slice(1),
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    const deadline = Date.now() + 20_000;
    while (true) {
      try {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port });
        conn.close();
        // Accepting TCP comes slightly before accepting logins.
        await psql("SELECT 1");
        return;
      } catch (error) {
        if (Date.now() > deadline) {
          throw new Error(`PostgreSQL did not start on port ${port}`, {
            cause: error,
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  const halt = async () => {
    if (server === undefined) return;
    const child = server;
    server = undefined;
    // SIGINT is PostgreSQL's fast shutdown: sessions end, the data stays. It goes
    // to the server itself (runuser does not pass signals on).
    const pid = serverPid(data) ?? child.pid;
    const signal = (name: Deno.Signal) => {
      try {
        Deno.kill(pid, name);
      } catch {
        // already ended
      }
    };
    signal("SIGINT");
    const timer = setTimeout(() => signal("SIGKILL"), 10_000);
    await child.status;
    clearTimeout(timer);
  };
  const psql = async (sql: string, database = "postgres") => {
    const output = await new Deno.Command(`${bin}/psql`, {
      args: [
        "-X",
        "-q",
        "-t",
        "-A",
        "-v",
        "ON_ERROR_STOP=1",
        "-h",
        "127.0.0.1",
        "-p",
        String(port),
        "-U",
        USER,
        "-d",
        database,
        "-c",
        sql,
      ],
      env: { PGPASSWORD: PASSWORD },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!output.success) {
      throw new Error(
        `psql failed: ${new TextDecoder().decode(output.stderr).trim()}`,
      );
    }
    return new TextDecoder().decode(output.stdout).trim();
  };
  const url = (database = "postgres") =>
    `postgres://${USER}:${
      encodeURIComponent(PASSWORD)
    }@127.0.0.1:${port}/${database}`;
  try {
    await start();
  } catch (error) {
    await halt();
    await Deno.remove(dir, { recursive: true });
    throw error;
  }
  return {
    port,
    password: PASSWORD,
    url,
    async createDatabase(name) {
      await psql(`CREATE DATABASE "${name}"`);
      return url(name);
    },
    psql,
    pause: halt,
    resume: start,
    async stop() {
      await halt();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** The server's process id, from the first line of `postmaster.pid`. */
function serverPid(data: string): number | undefined {
  try {
    const pid = Number(
      Deno.readTextFileSync(`${data}/postmaster.pid`).split("\n")[0],
    );
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function run(command: string, args: string[]): Promise<void> {
  const output = await new Deno.Command(command, {
    args,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(
      `${command} ${args.join(" ")} failed: ${
        new TextDecoder().decode(output.stderr).trim()
      }`,
    );
  }
}
