/**
 * Where and how the collector posts line protocol: the InfluxDB 1.x `/write` path or
 * the v2 `/api/v2/write` path (InfluxDB 2, VictoriaMetrics), with their credentials.
 *
 * @module
 */

/**
 * The write endpoint: the one request the line sender posts, and the same URL for
 * logs. v1 posts to `/write?db=` (Basic credentials), v2 to `/api/v2/write?org=&bucket=`
 * (`Authorization: Token ...`), both with `precision=ms`.
 */
export interface TsdbTarget {
  /** `v1` (`/write?db=`) or `v2` (`/api/v2/write`). */
  readonly api: "v1" | "v2";
  /** Full write URL, including `precision=ms`; credentials are never in it. */
  readonly url: string;
  /** Headers (content type and credentials), never logged. */
  readonly headers: Readonly<Record<string, string>>;
  /** The write URL, for logs: the very {@linkcode TsdbTarget.url} requested. */
  readonly label: string;
}

/** What {@linkcode tsdbTarget} reads. */
export interface TsdbTargetOptions {
  /** Host name, or a base URL such as `https://influx.example.com`. */
  host: string;
  /**
   * `TSDB_PORT`, `undefined` when unset. A port written in `host` wins; without one,
   * a bare host uses this port or 8086, a URL this port or its scheme's.
   */
  port?: number;
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
 * tsdbTarget({ host: "localhost", port: 8086, api: "v1", database: "home" }).label;
 * // "http://localhost:8086/write?db=home&precision=ms"
 * tsdbTarget({ host: "localhost", api: "v2", database: "home", org: "my org" }).url;
 * // "http://localhost:8086/api/v2/write?org=my%20org&bucket=home&precision=ms"
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
  if (options.api === "v2") {
    // As `@influxdata/influxdb-client` wrote it: a space is %20, not `+`.
    const org = encodeURIComponent(options.org ?? "");
    const bucket = encodeURIComponent(options.bucket ?? options.database);
    url = new URL(`${root}/api/v2/write`);
    url.search = `org=${org}&bucket=${bucket}&precision=ms`;
    if (options.token) headers.Authorization = `Token ${options.token}`;
  } else {
    url = new URL(`${root}/write`);
    url.searchParams.set("db", options.database);
    url.searchParams.set("precision", "ms");
    if (username !== undefined) {
      const bytes = new TextEncoder().encode(`${username}:${password}`);
      headers.Authorization = `Basic ${btoa(String.fromCharCode(...bytes))}`;
    }
  }
  // The URL holds no credentials (they are in `headers`): it is its own label.
  return { api: options.api, url: url.href, headers, label: url.href };
}

/**
 * The base URL of the store: a port written in `host` wins; otherwise `port` when
 * set; otherwise 8086 for a bare host (IPv6 in brackets) and the scheme's port for
 * a URL.
 *
 * @example
 * ```ts
 * baseUrl("localhost"); // "http://localhost:8086"
 * baseUrl("https://influx.example.com"); // "https://influx.example.com"
 * baseUrl("http://127.0.0.1", 8428); // "http://127.0.0.1:8428/"
 * baseUrl("http://127.0.0.1:80", 8428); // "http://127.0.0.1:80"
 * ```
 */
export function baseUrl(host: string, port?: number): string {
  if (host.includes("://")) {
    if (port === undefined || namesPort(host)) return host;
    const url = new URL(host);
    url.port = String(port);
    return url.href;
  }
  const ipv6 = (host.match(/:/g) ?? []).length >= 2 && !host.startsWith("[");
  const name = ipv6 ? `[${host}]` : host;
  return /:\d+$/.test(name)
    ? `http://${name}`
    : `http://${name}:${port ?? 8086}`;
}

/**
 * Whether the URL text names a port. Decided from the text: `URL` elides a scheme's
 * own port (`new URL("https://h:443").port` is `""`), which still wins here.
 */
function namesPort(url: string): boolean {
  const authority = url.slice(url.indexOf("://") + 3).split(/[/?#]/, 1)[0]!;
  const hostPort = authority.slice(authority.lastIndexOf("@") + 1);
  return /:\d+$/.test(hostPort);
}
