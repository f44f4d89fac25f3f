/**
 * Constant-time comparison of a presented secret with the configured one.
 *
 * @module
 */

/**
 * Returns a check that is true only when its argument equals `expected`. The
 * comparison always walks every character of `expected`, so the position of the first
 * wrong character of a guess does not show in response times (only whether its
 * length is right could).
 *
 * @example
 * ```ts
 * const isToken = createTokenCheck("s3cret");
 * isToken("s3cret"); // true
 * isToken("s3cre"); // false
 * ```
 */
export function createTokenCheck(expected: string): (given: string) => boolean {
  return (given) => {
    let diff = given.length ^ expected.length;
    for (let i = 0; i < expected.length; i++) {
      // charCodeAt past the end is NaN, which `| 0` turns into 0.
      diff |= (given.charCodeAt(i) | 0) ^ expected.charCodeAt(i);
    }
    return diff === 0;
  };
}
