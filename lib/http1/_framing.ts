/**
 * How a response's body is framed (RFC 9112 section 6.3), read strictly: anything a
 * recipient could read in two ways is an invalid response, never a guess.
 *
 * @module
 */
import type { ResponseHead } from "./_wire.ts";
import { InvalidFramingError } from "./errors.ts";

/** How the body of a response ends, and whether its connection may carry another. */
export type Framing =
  | { kind: "none"; keepAlive: boolean }
  | { kind: "length"; length: number; keepAlive: boolean }
  | { kind: "chunked"; keepAlive: boolean }
  | { kind: "close"; keepAlive: false };

/** Decimal digits of the longest length read (beyond 2^53 - 1 a number is not exact). */
const MAX_LENGTH_DIGITS = 15;

/**
 * The framing of `response`, a response to `method`. Throws an
 * {@linkcode InvalidFramingError} for a `Content-Length` that is not 1*DIGIT (or
 * too large), several `Content-Length` fields, `Content-Length` beside
 * `Transfer-Encoding`, `chunked` applied twice, or an empty `Transfer-Encoding`.
 * A `Transfer-Encoding` that does not end in `chunked` is read until the connection
 * closes, as RFC 9112 has it for a response.
 */
export function framingOf(response: ResponseHead, method: string): Framing {
  let keepAlive = !response.http10;
  let length: string | undefined;
  let lengths = 0;
  let codings: string[] | undefined;
  for (const [name, value] of response.headers) {
    if (name === "content-length") {
      lengths++;
      length = value;
    } else if (name === "transfer-encoding") {
      codings ??= [];
      for (const coding of value.split(",")) {
        const trimmed = coding.trim().toLowerCase();
        if (trimmed !== "") codings.push(trimmed);
      }
    } else if (name === "connection" && /(^|,)\s*close\s*($|,)/i.test(value)) {
      keepAlive = false;
    }
  }
  if (lengths > 1) throw invalid("several Content-Length fields");
  if (length !== undefined && codings !== undefined) {
    throw invalid("Content-Length beside Transfer-Encoding");
  }
  if (
    length !== undefined &&
    (!/^\d+$/.test(length) ||
      length.replace(/^0+/, "").length > MAX_LENGTH_DIGITS)
  ) {
    throw invalid("Content-Length is not a number of bytes");
  }
  if (codings !== undefined) {
    if (codings.length === 0) throw invalid("empty Transfer-Encoding");
    const chunked = codings.filter((coding) => coding === "chunked").length;
    if (chunked > 1) throw invalid("chunked applied twice");
  }
  // After the header checks: a bodiless response with a broken head is still broken.
  if (
    method === "HEAD" || response.status === 204 || response.status === 304 ||
    response.status < 200
  ) {
    return { kind: "none", keepAlive };
  }
  if (codings !== undefined) {
    return codings.at(-1) === "chunked"
      ? { kind: "chunked", keepAlive }
      : { kind: "close", keepAlive: false };
  }
  if (length !== undefined) {
    return { kind: "length", length: Number(length), keepAlive };
  }
  return { kind: "close", keepAlive: false };
}

/**
 * A chunk-size line (RFC 9112 section 7.1): hex digits, then extensions
 * `;name[=token or quoted-string]` with no blanks.
 */
const CHUNK_LINE =
  /^([0-9A-Fa-f]+)(?:;[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?:=(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+|"(?:[\t \x21\x23-\x5b\x5d-\x7e\x80-\xff]|\\[\t \x21-\x7e\x80-\xff])*"))?)*$/;

/** Hex digits of the largest chunk read (2^52 and more are refused). */
const MAX_CHUNK_DIGITS = 13;

/**
 * The size of the chunk that `line` (a chunk-size line without its CRLF) opens.
 * Throws an {@linkcode InvalidFramingError} for anything but hex digits with
 * well-formed extensions, or a size past 2^52.
 */
export function chunkSize(line: string): number {
  const match = CHUNK_LINE.exec(line);
  const digits = match?.[1]?.replace(/^0+(?=.)/, "");
  if (digits === undefined || digits.length > MAX_CHUNK_DIGITS) {
    throw invalid("invalid chunk size line");
  }
  return parseInt(digits, 16);
}

function invalid(problem: string): InvalidFramingError {
  return new InvalidFramingError(
    `Invalid framing from the server: ${problem}`,
  );
}
