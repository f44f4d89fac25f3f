/**
 * The error of an answer that breaks HTTP/1.1.
 *
 * @module
 */

/**
 * The remote answered, but not in HTTP/1.1: a bad status line, header line,
 * `Content-Length` or chunk, a head too large, or a body its `Content-Encoding` does
 * not decode. A `TypeError`, as `fetch` reports such answers, so callers that only
 * know `fetch` treat it alike; callers that tell it from a network failure (a proxy
 * answering 502) check for this class.
 *
 * @example
 * ```ts
 * import { createHttp1Client } from "./client.ts";
 *
 * const client = createHttp1Client();
 * try {
 *   await client.fetch("http://127.0.0.1:8080/");
 * } catch (error) {
 *   if (error instanceof InvalidResponseError) {
 *     // the remote is up, but its answer is broken
 *   }
 * }
 * ```
 */
export class InvalidResponseError extends TypeError {
  /** Builds the error; `message` says what is wrong, e.g. `Invalid status line from the remote`. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "InvalidResponseError";
  }
}
