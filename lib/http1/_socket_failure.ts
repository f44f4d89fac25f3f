/**
 * The platform's I/O errors of a connection, as the transport reports them.
 *
 * @module
 */
import { SocketError } from "./errors.ts";

/** Deno's I/O error classes (`ConnectionReset`, `BrokenPipe`, ...). */
const PLATFORM_ERRORS: readonly (new (...args: never[]) => Error)[] = Object
  .values(Deno.errors);

/**
 * `error` as the transport reports it: one of Deno's I/O errors becomes a
 * {@linkcode SocketError} (its cause), anything else passes unchanged.
 */
export function socketFailure(error: unknown): unknown {
  return PLATFORM_ERRORS.some((type) => error instanceof type)
    ? new SocketError(error)
    : error;
}
