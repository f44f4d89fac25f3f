/**
 * The data API's bearer-token check.
 *
 * @module
 */

const encoder = new TextEncoder();

/**
 * Compares two byte strings in time that depends only on `expected`'s length, so the
 * position of the first wrong byte of a guess does not show in response times.
 */
export function timingSafeEqual(
  given: Uint8Array,
  expected: Uint8Array,
): boolean {
  let diff = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) {
    diff |= (given[i % Math.max(given.length, 1)] ?? 0) ^ expected[i]!;
  }
  return diff === 0;
}

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
  const expected = encoder.encode(token);
  return (header) => {
    if (!header || !header.startsWith("Bearer ")) return false;
    return timingSafeEqual(encoder.encode(header.slice(7)), expected);
  };
}
