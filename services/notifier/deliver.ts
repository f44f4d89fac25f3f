/**
 * Sends a message to one target: its requests in turn, each retried on a connection
 * error, 429 or 5xx with backoff (honouring `Retry-After`), all within one time limit.
 *
 * @module
 */
import { backoffDelay, sleep } from "../../lib/backoff.ts";
import { deadline } from "../../lib/deadline.ts";
import { errorText } from "../../lib/log.ts";
import { readResponseText } from "../../lib/bounded_body.ts";
import {
  type Message,
  scrub,
  type ServiceBases,
  type Target,
  type TargetRequest,
} from "./targets/mod.ts";

/** The outcome of sending a message to one target. */
export interface Delivery {
  /** The target, its secrets masked. */
  readonly target: string;
  /** Whether every request of the target was accepted (2xx). */
  readonly ok: boolean;
  /** The last HTTP status the service returned; `null` when it never responded. */
  readonly status: number | null;
  /** What went wrong, secrets masked; absent when `ok`. */
  readonly error?: string;
  /** The body of the last response, as text, secrets masked (the Pushbullet reply). */
  readonly reply?: string;
}

/** Sends a message to a target; never throws. */
export type Deliver = (target: Target, message: Message) => Promise<Delivery>;

/** Options of {@linkcode createDeliver}. */
export interface DeliverOptions {
  /** Where the fixed-host services live. */
  bases: ServiceBases;
  /** Longest time for one target, every attempt included, in milliseconds. */
  timeoutMs: number;
  /** Most attempts of one request. @default 3 */
  maxAttempts?: number;
  /** First retry delay before jitter, in milliseconds. @default 250 */
  retryBaseMs?: number;
  /** The fetch to use. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Told of every request tried again (the notifier's metrics). @default none */
  onRetry?: (target: Target) => void;
}

/** The upstream response to one request. */
interface UpstreamResponse {
  status: number;
  /** The body as text; empty when it could not be read (`unread` says why). */
  text: string;
  unread?: Error;
  retryAfterMs?: number;
}

/**
 * Returns a {@linkcode Deliver} for the given services. Each of the target's requests
 * (one per chat, topic...) is sent, even after one failed. A request is retried when
 * the connection fails, or the service returns 429 or 5xx, while attempts remain
 * and the wait (its `Retry-After`, or a jittered backoff) ends within the time limit.
 * Redirects are not followed (they would carry a token elsewhere): a 3xx fails.
 * Messages name the service and the status or reason; secrets are scrubbed.
 *
 * @example
 * ```ts
 * import type { ServiceBases, Target } from "./targets/mod.ts";
 *
 * declare const bases: ServiceBases, target: Target;
 * const deliver = createDeliver({ bases, timeoutMs: 10_000 });
 * const delivery = await deliver(target, { title: "Door", body: "Opened", type: "info" });
 * ```
 */
export function createDeliver(options: DeliverOptions): Deliver {
  const fetchFn = options.fetch ?? globalThis.fetch;
  const maxAttempts = options.maxAttempts ?? 3;
  const retryBaseMs = options.retryBaseMs ?? 250;

  return async (target, message) => {
    const limit = deadline(options.timeoutMs);
    const started = Date.now();
    const remaining = () => options.timeoutMs - (Date.now() - started);
    const failed = (status: number | null, error: string): Delivery => ({
      target: target.display,
      ok: false,
      status,
      error: scrub(target, error),
    });

    /** One request, retried; the response when accepted, else the failure. */
    const deliverOne = async (
      request: TargetRequest,
    ): Promise<UpstreamResponse | Delivery> => {
      for (let attempt = 0;; attempt++) {
        let retryable: boolean;
        let failure: Delivery;
        let hint: number | undefined;
        try {
          const upstream = await send(fetchFn, request, limit.signal);
          if (upstream.status >= 200 && upstream.status < 300) return upstream;
          // The status stands when the body cannot be read: a 2xx delivered the
          // note, whatever came with it. Masked before it is cut: a secret cut in
          // two would stay readable.
          const detail = upstream.unread
            ? `its reply unread: ${errorText(upstream.unread)}`
            : upstreamMessage(upstream.text);
          const shown = detail && cut(scrub(target, detail), MAX_DETAIL_CHARS);
          failure = failed(
            upstream.status,
            `${target.service} returned HTTP ${upstream.status}${
              shown ? `: ${shown}` : ""
            }`,
          );
          retryable = upstream.status === 429 || upstream.status >= 500;
          hint = upstream.retryAfterMs;
        } catch (error) {
          if (limit.expired()) {
            return failed(
              null,
              `${target.service} did not respond within ${options.timeoutMs} ms`,
            );
          }
          failure = failed(
            null,
            `${target.service} unreachable: ${errorText(error)}`,
          );
          retryable = true;
        }
        const wait = hint ??
          backoffDelay(attempt, { baseMs: retryBaseMs, maxMs: 5_000 });
        if (
          !retryable || attempt + 1 >= maxAttempts || wait >= remaining()
        ) {
          return failure;
        }
        await sleep(wait, limit.signal);
        if (limit.expired()) return failure;
        options.onRetry?.(target);
      }
    };

    let last: UpstreamResponse | undefined;
    let firstFailure: Delivery | undefined;
    try {
      // Every request is tried (one chat or topic failing does not keep the
      // message from the others); the first failure is the target's.
      for (const request of target.requests(message, options.bases)) {
        const outcome = await deliverOne(request);
        if ("ok" in outcome) firstFailure ??= outcome;
        else last = outcome;
      }
    } finally {
      limit.clear();
    }
    return firstFailure ?? {
      target: target.display,
      ok: true,
      status: last?.status ?? null,
      // The client gets this body (Pushbullet alone): a gateway may echo the token.
      reply: last && scrub(target, last.text),
    };
  };
}

/** The most of a service's error text shown, after its secrets are masked. */
const MAX_DETAIL_CHARS = 200;

/** `text` cut to `max` characters (whole code points). */
function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, max).join("");
}

/**
 * The most of a response body that is read, decoded: more than any service's needs.
 * A body over it is read no further; the response's status still decides.
 */
const MAX_REPLY_BYTES = 256 * 1024;

async function send(
  fetchFn: typeof fetch,
  request: TargetRequest,
  signal: AbortSignal,
): Promise<UpstreamResponse> {
  const response = await fetchFn(request.url, {
    method: request.method,
    // Deno's fetch decodes the codings it asked for itself; asked for none, a coded
    // body comes as it is and is decoded here within the bound.
    headers: { "accept-encoding": "identity", ...request.headers },
    body: request.body,
    redirect: "manual",
    signal,
  });
  const { text, unread } = await readResponseText(response, MAX_REPLY_BYTES);
  // Stopped by the time limit: the caller reports the time-out.
  if (unread && signal.aborted) throw signal.reason;
  return {
    status: response.status,
    text,
    unread,
    retryAfterMs: retryAfter(response.headers.get("retry-after")),
  };
}

/** `Retry-After` in milliseconds: seconds or an HTTP date; undefined when absent. */
export function retryAfter(
  value: string | null,
  now = Date.now(),
): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The error text of a service's JSON error reply (Pushbullet's `error.message`,
 * Telegram's `description`, ntfy's `error`, Gotify's `errorDescription`, Pushover's
 * `errors`, Discord's `message`), trimmed.
 */
function upstreamMessage(text: string): string | undefined {
  try {
    const reply = JSON.parse(text);
    const message = reply?.error?.message ?? reply?.errorDescription ??
      reply?.description ?? reply?.message ??
      (Array.isArray(reply?.errors) ? reply.errors.join("; ") : undefined) ??
      (typeof reply?.error === "string" ? reply.error : undefined);
    if (typeof message === "string" && message.trim() !== "") {
      return message.trim().replace(/\.$/, "");
    }
  } catch {
    // not JSON: the status alone says enough
  }
  return undefined;
}
