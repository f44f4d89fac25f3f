/**
 * Sends one batch of line protocol to the time-series store: a plain POST to the v1
 * `/write` path, or the write API of `@influxdata/influxdb-client` for v2.
 *
 * @module
 */
import { HttpError, InfluxDB } from "@influxdata/influxdb-client";
import { responseBytes } from "../../lib/bounded_body.ts";
import type { TsdbTarget } from "./tsdb_target.ts";

/**
 * Bound on the bytes of the store's reply, decoded: a reason naming lines is a few
 * KB; a reply over it rejects with a `BodyTooLargeError` (the points are kept).
 */
export const MAX_STORE_REPLY_BYTES = 1024 * 1024;

/** The store's answer to one batch. */
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
  if (target.api === "v1") {
    return async (lines, signal) => {
      const response = await fetch(target.url, {
        method: "POST",
        // Deno's fetch decodes the codings it asked for itself; asked for none, a
        // coded reply comes as it is and is decoded here within the bound.
        headers: { "accept-encoding": "identity", ...target.headers },
        body: lines.join("\n"),
        // A redirect would carry the store's credentials elsewhere: it is an answer.
        redirect: "manual",
        signal,
      });
      const bytes = await responseBytes(response, MAX_STORE_REPLY_BYTES);
      return { status: response.status, text: new TextDecoder().decode(bytes) };
    };
  }
  return async (lines, signal) => {
    // One short-lived write API per batch: no timers or buffers of its own outlive
    // the call, and the library never retries (maxRetries 0) or logs (writeFailed).
    const writeApi = new InfluxDB({
      url: target.root,
      token: target.token,
      transportOptions: { signal },
    }).getWriteApi(target.org, target.bucket, "ms", {
      batchSize: lines.length + 1,
      flushInterval: 0,
      maxRetries: 0,
      writeFailed: (error) => Promise.reject(error),
    });
    writeApi.writeRecords([...lines]);
    try {
      await writeApi.close();
      return { status: 204, text: "" };
    } catch (error) {
      if (error instanceof HttpError) {
        return { status: error.statusCode, text: error.body ?? "" };
      }
      throw error;
    }
  };
}
