/**
 * Sends one batch of line protocol to the time-series store: a plain POST to the v1
 * `/write` path or the v2 `/api/v2/write` path, its reply read within a bound.
 *
 * @module
 */
import { readResponseText } from "../../lib/bounded_body.ts";
import { errorText } from "../../lib/log.ts";
import { maskSecrets } from "../../lib/logging.ts";
import type { TsdbTarget } from "./tsdb_target.ts";

/**
 * Bound on the bytes of the store's reply, decoded: a reason naming lines is a few
 * KB. A reply over it is not read further; its status still decides (see
 * {@linkcode SendLines}).
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
 * the store's reply; rejects on a network error before the response, or when
 * `signal` aborts. A reply whose body cannot be read (over
 * {@linkcode MAX_STORE_REPLY_BYTES}, not decodable, cut off) still resolves, with
 * its status and a text saying why: a 2xx wrote the points, and a refusal of
 * them (400 naming every line of a large batch) must not keep them for ever.
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
  const { url, headers } = target;
  const secrets = credentialsOf(target);
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
    const { text, unread } = await readResponseText(
      response,
      MAX_STORE_REPLY_BYTES,
    );
    if (unread && signal.aborted) throw signal.reason;
    // InfluxDB 2 may give its reason in a header only.
    const reason = text || response.headers.get("x-influxdb-error") ||
      (unread ? `(its reply unread: ${errorText(unread)})` : "");
    // A store may echo the credentials: masked here, before anything cuts the text.
    return { status: response.status, text: maskSecrets(reason, secrets) };
  };
}

/**
 * The credentials `target` sends, in every form a store could echo them in: the
 * token (v2, `Token ...`); the Basic header's encoded value, `user:password` and
 * the password (v1). Longest first, so that one holding another is masked whole.
 */
function credentialsOf(target: TsdbTarget): string[] {
  const authorization = target.headers.Authorization ?? "";
  const token = /^Token (.+)$/s.exec(authorization)?.[1];
  if (token !== undefined) return [token];
  const basic = /^Basic (.+)$/.exec(authorization)?.[1];
  if (basic === undefined) return [];
  const pair = new TextDecoder().decode(
    Uint8Array.from(atob(basic), (char) => char.charCodeAt(0)),
  );
  return [basic, pair, pair.slice(pair.indexOf(":") + 1)]
    .sort((a, b) => b.length - a.length);
}
