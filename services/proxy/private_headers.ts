/**
 * The headers that make a request one client's own (`PROXY_PRIVATE_HEADERS`, with
 * `Authorization` and `Cookie` always): a response to such a request is neither
 * stored nor served by the cache, and connections to the upstream are shared only
 * between requests that carry the same values.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { isHeaderToken, list } from "../../lib/setting_kinds.ts";
import { refine, type Setting } from "../../lib/settings.ts";

/** The default of `PROXY_PRIVATE_HEADERS`. */
export const DEFAULT_PRIVATE_HEADERS: readonly string[] = [
  "X-Api-Key",
  "Api-Key",
  "X-Auth-Token",
  "X-Access-Token",
];

/** Always private, whatever `PROXY_PRIVATE_HEADERS` says. */
const ALWAYS = ["authorization", "cookie"];

/**
 * The `PROXY_PRIVATE_HEADERS` setting: header names, comma-separated.
 *
 * @example
 * ```ts
 * privateHeaders({ description: "Private headers" }).read("X-Key, X-Token"); // ["X-Key", "X-Token"]
 * ```
 */
export function privateHeaders(
  options: { description: string },
): Setting<string[]> {
  return refine(
    list({ ...options, default: [...DEFAULT_PRIVATE_HEADERS] }),
    "header names, comma-separated (X-Api-Key,X-Auth-Token)",
    (names) => names.every(isHeaderToken),
  );
}

/** What the proxy reads of a request's private headers. */
export interface PrivateHeaders {
  /**
   * Whether `headers` carry `Cookie` or a header of `PROXY_PRIVATE_HEADERS`, other
   * than those of `except` (lower-case names). `Authorization` is the cache's own
   * rule (`docs/proxy.md#response-cache`).
   */
  carried(headers: Headers, except?: ReadonlySet<string>): boolean;
  /**
   * A digest of the values of the private headers in `headers`, `""` when there is
   * none: requests with different values never share a connection.
   */
  partition(headers: Headers): string;
}

/**
 * Returns the reader of `names` (with `Authorization` and `Cookie`).
 *
 * @example
 * ```ts
 * const private_ = createPrivateHeaders(["X-Api-Key"]);
 * private_.carried(new Headers({ "x-api-key": "KEYA" })); // true
 * private_.partition(new Headers()); // ""
 * ```
 */
export function createPrivateHeaders(
  names: readonly string[] = DEFAULT_PRIVATE_HEADERS,
): PrivateHeaders {
  const lower = [
    ...new Set([...ALWAYS, ...names.map((name) => name.toLowerCase())]),
  ];
  return {
    carried: (headers, except) =>
      lower.some((name) =>
        name !== "authorization" && !except?.has(name) && headers.has(name)
      ),
    partition(headers) {
      let hash: ReturnType<typeof createHash> | undefined;
      for (const name of lower) {
        const value = headers.get(name);
        if (value === null) continue;
        hash ??= createHash("sha256");
        hash.update(`${name}:${value}\n`);
      }
      return hash === undefined ? "" : hash.digest("base64");
    },
  };
}
