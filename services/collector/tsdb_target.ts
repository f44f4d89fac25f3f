/**
 * Where and how the collector posts line protocol: the InfluxDB 1.x `/write` path or
 * the v2 `/api/v2/write` path (InfluxDB 2, VictoriaMetrics), with their credentials.
 *
 * @module
 */

/** The write endpoint: URL with its query, and the headers to send. */
export interface TsdbTarget {
  /** Full write URL, including `precision=ms`. */
  readonly url: string;
  /** Headers (credentials), never logged. */
  readonly headers: Readonly<Record<string, string>>;
  /** The URL without credentials, for logs. */
  readonly label: string;
}

/** What {@linkcode tsdbTarget} reads. */
export interface TsdbTargetOptions {
  /** Host name, or a base URL such as `https://influx.example.com`. */
  host: string;
  /** Port, used when `host` is a bare host name. */
  port: number;
  /** `v1` (`/write?db=`) or `v2` (`/api/v2/write`). */
  api: "v1" | "v2";
  /** v1 database. */
  database: string;
  /** v2 organisation. */
  org?: string;
  /** v2 bucket. @default the database */
  bucket?: string;
  /** v2 token (`Authorization: Token ...`). */
  token?: string;
  /** v1 user name. */
  username?: string;
  /** v1 password. */
  password?: string;
}

/**
 * Builds the write endpoint from the `TSDB_*` settings.
 *
 * @example
 * ```ts
 * tsdbTarget({ host: "localhost", port: 8086, api: "v1", database: "home" }).url;
 * // "http://localhost:8086/write?db=home&precision=ms"
 * ```
 */
export function tsdbTarget(options: TsdbTargetOptions): TsdbTarget {
  const base = new URL(baseUrl(options.host, options.port));
  // Credentials in TSDB_HOST (https://user:pass@host) go in a header, not the URL.
  const username = options.username ??
    (decodeURIComponent(base.username) || undefined);
  const password = options.password ?? decodeURIComponent(base.password);
  base.username = "";
  base.password = "";
  const root = base.href.replace(/\/+$/, "");
  const headers: Record<string, string> = {
    "Content-Type": "text/plain; charset=utf-8",
  };
  let url: URL;
  if (options.api === "v1") {
    url = new URL(`${root}/write`);
    url.searchParams.set("db", options.database);
    if (username !== undefined) {
      const pair = `${username}:${password}`;
      const bytes = new TextEncoder().encode(pair);
      headers.Authorization = `Basic ${btoa(String.fromCharCode(...bytes))}`;
    }
  } else {
    url = new URL(`${root}/api/v2/write`);
    if (options.org !== undefined) url.searchParams.set("org", options.org);
    url.searchParams.set("bucket", options.bucket ?? options.database);
    if (options.token !== undefined) {
      headers.Authorization = `Token ${options.token}`;
    }
  }
  url.searchParams.set("precision", "ms");
  return { url: url.href, headers, label: url.href };
}

/**
 * `http://host:port` for a bare host (IPv6 in brackets), or the URL as given.
 *
 * @example
 * ```ts
 * baseUrl("localhost", 8086); // "http://localhost:8086"
 * ```
 */
export function baseUrl(host: string, port: number): string {
  if (host.includes("://")) return host;
  const ipv6 = (host.match(/:/g) ?? []).length >= 2 && !host.startsWith("[");
  const name = ipv6 ? `[${host}]` : host;
  return /:\d+$/.test(name) ? `http://${name}` : `http://${name}:${port}`;
}
