/**
 * The error of a failed push API call, answered by the notifier as 502.
 *
 * @module
 */

/** What went wrong with a push API call. */
export type PushErrorKind = "http" | "invalid-reply" | "timeout" | "network";

/**
 * Thrown by a {@linkcode PushClient} when the push API cannot deliver a note: the
 * notifier answers it with 502 and this error's message.
 */
export class PushError extends Error {
  /** What went wrong. */
  readonly kind: PushErrorKind;
  /** The push API's HTTP status, for `kind: "http"`. */
  readonly status?: number;

  /** Builds the error. */
  constructor(
    kind: PushErrorKind,
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "PushError";
    this.kind = kind;
    this.status = options.status;
  }
}
