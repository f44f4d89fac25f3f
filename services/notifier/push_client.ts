/**
 * The notifier's client of the push API (`POST {base}/v2/pushes`).
 *
 * @module
 */
import { deadline } from "../../lib/deadline.ts";
import { errorText } from "../../lib/log.ts";
import { PushError } from "./push_error.ts";

/** A note sent to the push API. */
export interface PushNote {
  /** The note's title. */
  title: string;
  /** The note's text. */
  body: string;
}

/** Sends notes to a push API. */
export interface PushClient {
  /**
   * Sends `note` and resolves with the push API's decoded JSON reply.
   *
   * @throws {PushError} when the push API answers an error, an invalid reply, too late
   * or not at all.
   */
  sendNote(note: PushNote): Promise<unknown>;
}

/** Options of {@linkcode createPushClient}. */
export interface PushClientOptions {
  /** Base URL of the push API, e.g. `https://api.pushbullet.com`. */
  baseUrl: string;
  /** Access token, sent as the Basic auth user name with an empty password. */
  token: string;
  /** Longest wait for the whole reply, in milliseconds. */
  timeoutMs: number;
  /** The fetch to use. @default globalThis.fetch */
  fetch?: typeof fetch;
}

/**
 * Returns a {@linkcode PushClient} posting notes to `{baseUrl}/v2/pushes` as JSON
 * `{"type": "note", "title", "body"}` with HTTP Basic authentication (the scheme first
 * described) and the `Access-Token` header (the one Pushbullet documents today).
 *
 * Error messages name the status or the reason, never the token.
 *
 * @example
 * ```ts
 * const push = createPushClient({
 *   baseUrl: "https://api.pushbullet.com",
 *   token: "o.abc",
 *   timeoutMs: 10_000,
 * });
 * const reply = await push.sendNote({ title: "Door", body: "Opened" });
 * ```
 */
export function createPushClient(options: PushClientOptions): PushClient {
  const endpoint = `${options.baseUrl.replace(/\/+$/, "")}/v2/pushes`;
  const authorization = `Basic ${base64(`${options.token}:`)}`;
  const fetchFn = options.fetch ?? globalThis.fetch;
  return {
    async sendNote(note: PushNote): Promise<unknown> {
      const limit = deadline(options.timeoutMs);
      try {
        const response = await fetchFn(endpoint, {
          method: "POST",
          headers: {
            // HTTP Basic as first described, and the header Pushbullet's current docs show.
            authorization,
            "access-token": options.token,
            "content-type": "application/json",
            accept: "application/json",
          },
          body: JSON.stringify({
            type: "note",
            title: note.title,
            body: note.body,
          }),
          // A redirect would carry the token to another server: it is an error.
          redirect: "manual",
          signal: limit.signal,
        });
        const text = await response.text();
        if (!response.ok) {
          const detail = upstreamMessage(text);
          throw new PushError(
            "http",
            `Push API answered HTTP ${response.status}${
              detail ? `: ${detail}` : ""
            }`,
            { status: response.status },
          );
        }
        try {
          return JSON.parse(text);
        } catch (error) {
          throw new PushError(
            "invalid-reply",
            `Push API answered HTTP ${response.status} with invalid JSON`,
            { status: response.status, cause: error },
          );
        }
      } catch (error) {
        if (error instanceof PushError) throw error;
        if (limit.expired()) {
          throw new PushError(
            "timeout",
            `Push API did not answer within ${options.timeoutMs} ms`,
          );
        }
        throw new PushError(
          "network",
          `Push API unreachable: ${errorText(error)}`,
          { cause: error },
        );
      } finally {
        limit.clear();
      }
    },
  };
}

/** The `error.message` of a Pushbullet error reply, when there is one. */
function upstreamMessage(text: string): string | undefined {
  try {
    const reply = JSON.parse(text);
    const message = reply?.error?.message ?? reply?.message;
    if (typeof message === "string" && message.trim() !== "") {
      return message.trim().replace(/\.$/, "").slice(0, 200);
    }
  } catch {
    // not JSON: the status alone says enough
  }
  return undefined;
}

function base64(value: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(value)) {
    binary += String.fromCharCode(byte);
  }
  return btoa(binary);
}
