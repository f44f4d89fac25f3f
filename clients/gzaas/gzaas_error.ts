/**
 * The typed error of the {@linkcode Gzaas} client.
 *
 * @module
 */

/**
 * What went wrong with a styled-message API call:
 * - `http`: the server returned an error status (or `"valid": false`)
 * - `invalid-reply`: the reply is not the documented JSON
 * - `timeout`: no full reply within the client's `timeoutMs`
 * - `too-large`: the reply's body is longer than the client's `maxReplyBytes`
 * - `network`: the server could not be reached
 * - `aborted`: the caller's `AbortSignal` fired
 */
export type GzaasErrorKind =
  | "http"
  | "invalid-reply"
  | "timeout"
  | "too-large"
  | "network"
  | "aborted";

/** Details of a {@linkcode GzaasError}. */
export interface GzaasErrorOptions {
  /** What went wrong. */
  kind: GzaasErrorKind;
  /** HTTP status of the reply, when there was one. */
  status?: number;
  /** The server's `errorMessage`, when it sent one. */
  errorMessage?: string;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * The error every failed call of {@linkcode Gzaas} rejects with.
 *
 * @example
 * ```ts
 * import { Gzaas } from "./gzaas.ts";
 *
 * try {
 *   await new Gzaas().setApiKey("key").create("Hello");
 * } catch (error) {
 *   if (error instanceof GzaasError && error.kind === "http") {
 *     console.error(error.status, error.errorMessage); // 400 "Invalid API key"
 *   }
 * }
 * ```
 */
export class GzaasError extends Error {
  /** What went wrong. */
  readonly kind: GzaasErrorKind;
  /** HTTP status of the reply; `undefined` for time-outs, network errors, aborts. */
  readonly status: number | undefined;
  /** The server's `errorMessage`; `undefined` when it sent none. */
  readonly errorMessage: string | undefined;

  /**
   * Builds the error.
   *
   * @example
   * ```ts
   * new GzaasError("Gzaas API returned HTTP 503", { kind: "http", status: 503 });
   * ```
   */
  constructor(message: string, options: GzaasErrorOptions) {
    super(message, { cause: options.cause });
    this.name = "GzaasError";
    this.kind = options.kind;
    this.status = options.status;
    this.errorMessage = options.errorMessage;
  }
}
