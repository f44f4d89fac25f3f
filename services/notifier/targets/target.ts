/**
 * What every notification target is: a parsed Apprise URL that turns a message
 * into the HTTP requests its service documents.
 *
 * @module
 */

/** The message types of Apprise (and of its API's `type` field). */
export const NOTIFY_TYPES = ["info", "success", "warning", "failure"] as const;

/** One of {@linkcode NOTIFY_TYPES}. */
export type NotifyType = typeof NOTIFY_TYPES[number];

/** ntfy's priorities, lowest first: what a note may ask of a target that has them. */
export const NOTE_PRIORITIES = [
  "min",
  "low",
  "default",
  "high",
  "max",
] as const;

/** One of {@linkcode NOTE_PRIORITIES}. */
export type NotePriority = typeof NOTE_PRIORITIES[number];

/** A notification to send. */
export interface Message {
  /** The title; may be empty. */
  readonly title: string;
  /** The text. */
  readonly body: string;
  /** The kind of news. */
  readonly type: NotifyType;
  /**
   * How urgent it is (an alert's severity), over the target URL's own
   * `?priority=` for the targets that have priorities (ntfy, Gotify).
   * @default the target URL's priority
   */
  readonly priority?: NotePriority;
}

/** Base URLs of the services that live at a fixed host (overridable for tests). */
export interface ServiceBases {
  /** Pushbullet's API, e.g. `https://api.pushbullet.com`. */
  readonly pushbullet: string;
  /** Pushover's API, e.g. `https://api.pushover.net`. */
  readonly pushover: string;
  /** Telegram's Bot API, e.g. `https://api.telegram.org`. */
  readonly telegram: string;
  /** Discord, e.g. `https://discord.com`. */
  readonly discord: string;
}

/** One HTTP request that delivers a message. */
export interface TargetRequest {
  /** Absolute URL. */
  readonly url: string;
  /** HTTP method. */
  readonly method: string;
  /** Request headers. */
  readonly headers: Readonly<Record<string, string>>;
  /** Request body, when there is one. */
  readonly body?: string;
}

/** A notification target parsed from its Apprise URL. */
export interface Target {
  /** The URL's scheme, lower case (`ntfy`, `pbul`...). */
  readonly scheme: string;
  /** The service's name in messages, e.g. `ntfy` or `Push API`. */
  readonly service: string;
  /** The URL with every secret replaced by `****`: safe for logs and responses. */
  readonly display: string;
  /** The secrets the URL holds, scrubbed from any text shown. */
  readonly secrets: readonly string[];
  /** The requests that deliver `message` (one per topic, chat or device group). */
  requests(message: Message, bases: ServiceBases): TargetRequest[];
}

/** The mask that replaces a secret in shown text. */
export const MASK = "****";

/**
 * Thrown by a URL parser when a target URL is malformed; the message never holds a
 * secret (it names the masked URL).
 */
export class TargetUrlError extends Error {
  /** Builds the error. */
  constructor(message: string) {
    super(message);
    this.name = "TargetUrlError";
  }
}

/**
 * `text` with every secret of `target` replaced by `****`, as it is and as it reads
 * percent-encoded in a URL (a connection error quotes the request URL).
 */
export function scrub(target: Pick<Target, "secrets">, text: string): string {
  let result = text;
  for (const secret of target.secrets) {
    if (secret.length < 3) continue;
    const forms = new Set([
      secret,
      encodeURIComponent(secret),
      new URLSearchParams({ s: secret }).toString().slice(2),
    ]);
    for (const form of forms) result = result.split(form).join(MASK);
  }
  return result;
}
