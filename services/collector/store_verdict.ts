/**
 * What the time-series store's response to one batch means for its points: written,
 * kept for a retry (the store or its configuration is at fault, not the points),
 * split (too large), or dropped (the store's verdict on the points themselves).
 *
 * @module
 */
import type { StoreReply } from "./line_sender.ts";

/** What to do with a batch after the store's response. */
export type StoreVerdict =
  | { kind: "written" }
  /**
   * Keep the batch and retry with backoff. `advice` (what the user must do) is set
   * when the store will not take it until its configuration or ours changes: such
   * a cause is an ERROR, a passing one (no advice) a WARNING.
   */
  | { kind: "retry"; reason: string; advice?: string }
  /**
   * Send the batch again in halves: too large (`tooLarge`, a 413: the store's bound
   * holds for the next batches too), or refused without naming lines (to find them).
   */
  | { kind: "split"; reason: string; tooLarge: boolean }
  /** `refused` points of the batch were not stored; the others were (a partial write). */
  | { kind: "drop"; reason: string; refused: number };

/** What the store is told to write to, for the advice of a refusal. */
export interface StoreAdvice {
  /** `v1` (database, user name and password) or `v2` (organisation, bucket, token). */
  api: "v1" | "v2";
  /** v1 database. */
  database: string;
  /** v2 bucket. */
  bucket: string;
  /** v2 organisation (`""` when unset). */
  org: string;
  /** v1 user name, when set. */
  username?: string;
}

/**
 * Reads the store's response to a batch of `size` points. Only a verdict on the points
 * (400 or 422 naming lines, a partial write) drops points, and only those it names;
 * 401, 403 and 404 keep them with an advice, 408, 429 and 5xx keep them as a passing
 * failure, 413 (or a 400 that names no line, for more than one point) splits the
 * batch; any other status keeps them with an advice.
 *
 * @example
 * ```ts
 * const advice = { api: "v1", database: "home", bucket: "home", org: "" } as const;
 * storeVerdict({ status: 404, text: '{"error":"database not found"}' }, 10, advice);
 * // { kind: "retry", reason: "404 database not found", advice: "create the database ..." }
 * ```
 */
export function storeVerdict(
  response: StoreReply,
  size: number,
  advice: StoreAdvice,
): StoreVerdict {
  const { status } = response;
  if (status >= 200 && status < 300) return { kind: "written" };
  const message = storeMessage(response.text);
  const reason = `${status} ${shown(message)}`.trim();
  if (status === 400 || status === 422) {
    const partial = partialWriteDropped(message);
    if (partial !== undefined) {
      return { kind: "drop", reason, refused: Math.min(size, partial) };
    }
    // InfluxDB returns a batch none of whose lines parse this way, naming each.
    if (/(?:^|\n)unable to parse '/.test(message) || size === 1) {
      return { kind: "drop", reason, refused: size };
    }
    return { kind: "split", reason, tooLarge: false };
  }
  if (status === 413) {
    return size === 1
      ? { kind: "drop", reason, refused: 1 }
      : { kind: "split", reason, tooLarge: true };
  }
  if (status === 408 || status === 429 || status >= 500) {
    return { kind: "retry", reason };
  }
  return { kind: "retry", reason, advice: refusalAdvice(status, advice) };
}

/** What the user must do for the store to take the points again. */
function refusalAdvice(status: number, target: StoreAdvice): string {
  const v1 = target.api === "v1";
  if (status === 401) {
    return v1
      ? "set TSDB_USERNAME and TSDB_PASSWORD to a user of the store allowed to write"
      : "set TSDB_TOKEN to a token of the store allowed to write";
  }
  if (status === 403) {
    return v1
      ? `give the user write access (GRANT WRITE ON "${target.database}" TO "${
        target.username ?? "..."
      }") or set TSDB_USERNAME and TSDB_PASSWORD to one that has it`
      : `give the token write access to the bucket "${target.bucket}" or set TSDB_TOKEN to one that has it`;
  }
  if (status === 404) {
    return v1
      ? `create the database (CREATE DATABASE "${target.database}") or set TSDB_DATABASE to an existing one`
      : `create the bucket "${target.bucket}"${
        target.org ? ` in the organisation "${target.org}"` : ""
      } or set TSDB_BUCKET and TSDB_ORG to existing ones`;
  }
  return "check TSDB_HOST, TSDB_API and the store's own log";
}

/**
 * How many points of a batch a partial write dropped, `undefined` when the response
 * is no partial write (the whole batch was refused). InfluxDB (1.x: 400 `{"error"}`,
 * 2.x: 422 `{"message"}`) stores the other points and ends its message with
 * `dropped=N`. N leaves out the lines it could not parse (1.x says `dropped=0` for
 * them), listed one "unable to parse '...'" each. VictoriaMetrics sends no such
 * response: it skips what it cannot store and returns 204.
 *
 * @example
 * ```ts
 * partialWriteDropped("partial write: field type conflict: ... dropped=1"); // 1
 * partialWriteDropped("unable to parse 'x': invalid field format"); // undefined
 * ```
 */
export function partialWriteDropped(message: string): number | undefined {
  const dropped = /\bpartial write: [^]*\bdropped=(\d+)\s*$/.exec(message);
  if (!dropped) return undefined;
  const unparsed =
    message.match(/(?:^|\n|partial write: )unable to parse '/g)?.length ?? 0;
  return Number(dropped[1]) + unparsed;
}

/** The store's error text: `{"error": "..."}` (InfluxDB 1.x), `{"message": ...}` or raw. */
function storeMessage(text: string): string {
  try {
    const body = JSON.parse(text);
    const message = body?.error ?? body?.message;
    if (typeof message === "string") return message;
  } catch {
    // not JSON: the raw text
  }
  return text.trim();
}

/** The most of a store's error text a reason shows. */
const MAX_MESSAGE_CHARS = 300;

/**
 * `message` as a reason shows it: at most {@linkcode MAX_MESSAGE_CHARS} characters
 * (the line sender masked its secrets first).
 */
function shown(message: string): string {
  const chars = [...message];
  return chars.length <= MAX_MESSAGE_CHARS
    ? message
    : `${chars.slice(0, MAX_MESSAGE_CHARS).join("")}…`;
}
