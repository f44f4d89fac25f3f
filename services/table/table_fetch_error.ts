/**
 * The error of a failed fetch of the data API, returned by the table app as 502.
 *
 * @module
 */

/** A failed fetch of the data API; `status` is set when it returned an HTTP error. */
export class TableFetchError extends Error {
  /** The HTTP status the data API returned, when it returned one. */
  readonly status?: number;

  /** Builds the error. */
  constructor(
    message: string,
    options: { status?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "TableFetchError";
    this.status = options.status;
  }
}
