/**
 * Sends one batch of line protocol to the time-series store: a plain POST to the v1
 * `/write` path or the v2 `/api/v2/write` path, its reply read within a bound.
 *
 * @module
 */
import { responseBytes } from "../../lib/bounded_body.ts";
import type { TsdbTarget } from "./tsdb_target.ts";

/**
 * Bound on the bytes of the store's reply, decoded: a reason naming lines is a few
 * KB; a reply over it rejects with a `BodyTooLargeError` (the points are kept).
 */
export const MAX_STORE_REPLY_BYTES = 1024 * 1024;

/** The store's response to one batch. */
export interface StoreReply {
  /** HTTP status (2xx when written). */
  readonly status: number;
  /** Body of the reply (the store's reason when refused). */
  readonly text: string;
}

/**
 * Sends `lines` once, without retrying (the writer's buffer retries). Resolves with
 * the store's reply; rejects on a network error, a reply body over
 * {@linkcode MAX_STORE_REPLY_BYTES} or when `signal` aborts.
 */
export type SendLines = (
  lines: readonly string[],
  signal: AbortSignal,
) => Promise<StoreReply>;

/**
 * Builds the {@linkcode SendLines} of `target`.
 *
 * @example
 * ```ts
 * import { tsdbTarget } from "./tsdb_target.ts";
 * import type { TsdbTargetOptions } from "./tsdb_target.ts";
 *
 * declare const options: TsdbTargetOptions;
 * const send = createLineSender(tsdbTarget(options));
 * const reply = await send(
 *   ["home_uvi,location=out value=3.4 0"],
 *   AbortSignal.timeout(10_000),
 * );
 * ```
 */
export function createLineSender(target: TsdbTarget): SendLines {
  const { url, headers } = target.api === "v1" ? target : v2Request(target);
  return async (lines, signal) => {
    const response = await fetch(url, {
      method: "POST",
      // Deno's fetch decodes the codings it asked for itself; asked for none, a
      // coded reply comes as it is and is decoded here within the bound.
      headers: { "accept-encoding": "identity", ...headers },
      body: lines.join("\n"),
      // A redirect would carry the store's credentials elsewhere: it is a response.
      redirect: "manual",
      signal,
    });
    const bytes = await responseBytes(response, MAX_STORE_REPLY_BYTES);
    const text = new TextDecoder().decode(bytes);
    // InfluxDB 2 may give its reason in a header only.
    return {
      status: response.status,
      text: text || (response.headers.get("x-influxdb-error") ?? ""),
    };
  };
}

/**
 * The v2 write request, as `@influxdata/influxdb-client`'s write API sends it (its
 * transport held a JSON error reply whole, without a bound).
 */
function v2Request(
  target: Extract<TsdbTarget, { api: "v2" }>,
): { url: string; headers: Record<string, string> } {
  const query = `org=${encodeURIComponent(target.org)}&bucket=${
    encodeURIComponent(target.bucket)
  }&precision=ms`;
  const headers: Record<string, string> = {
    "Content-Type": "text/plain; charset=utf-8",
  };
  if (target.token) headers.Authorization = `Token ${target.token}`;
  return { url: `${target.root}/api/v2/write?${query}`, headers };
}
