/**
 * The data API's bearer-token check.
 *
 * @module
 */
import { createTokenCheck } from "../../lib/token_check.ts";

/**
 * Returns a check of an `Authorization` header value: true only for exactly
 * `Bearer <token>` with the configured token (compared in constant time).
 *
 * @example
 * ```ts
 * const isValid = createBearerCheck("s3cret");
 * isValid("Bearer s3cret"); // true
 * isValid("bearer s3cret"); // false
 * ```
 */
export function createBearerCheck(
  token: string,
): (header: string | null | undefined) => boolean {
  const isToken = createTokenCheck(token);
  return (header) =>
    !!header?.startsWith("Bearer ") && isToken(header.slice(7));
}
