/**
 * The HTTP/1.1 wire format of the pooled client: request heads out, answer heads in.
 *
 * @module
 */
import type { Answer } from "./_answer_body.ts";
import { preview } from "../preview.ts";
import { InvalidResponseError } from "./invalid_response_error.ts";

/** A request body the pooled client sends itself. */
export type RequestBody =
  | string
  | Uint8Array
  | ReadableStream<Uint8Array>
  | null;

/** Headers the client writes itself. */
const FRAMING = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
]);

/** A request head and how its body is framed. */
export interface RequestHead {
  /** Request line, headers and the blank line. */
  text: string;
  /** A streamed body goes out in chunks (its length was not declared). */
  chunked: boolean;
}

/**
 * The request line and headers. A streamed body keeps a declared `Content-Length`
 * (some servers insist on one) and is chunked otherwise.
 */
export function requestHead(
  method: string,
  url: URL,
  headers: HeadersInit | undefined,
  body: RequestBody,
): RequestHead {
  let head =
    `${method} ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  const pairs = Array.isArray(headers)
    ? headers
    : headers === undefined
    ? []
    : [...new Headers(headers)];
  let declared: string | undefined;
  for (const [name, value] of pairs) {
    const lower = name.toLowerCase();
    if (lower === "content-length") declared = value.trim();
    else if (!FRAMING.has(lower)) head += `${name}: ${value}\r\n`;
  }
  let chunked = false;
  if (body instanceof ReadableStream) {
    chunked = declared === undefined || !/^\d+$/.test(declared);
    head += chunked
      ? "transfer-encoding: chunked\r\n"
      : `content-length: ${declared}\r\n`;
  } else if (body !== null) {
    const length = typeof body === "string"
      ? new TextEncoder().encode(body).length
      : body.length;
    head += `content-length: ${length}\r\n`;
  } else if (method === "POST" || method === "PUT") {
    head += "content-length: 0\r\n";
  }
  return { text: `${head}\r\n`, chunked };
}

/**
 * A well-formed header line: a token name (RFC 9110), blanks before the colon
 * (which RFC 9112 has a proxy remove), and a value with no NUL, CR or LF (which a
 * `Headers` object refuses too).
 */
const HEADER_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+)[ \t]*:([^\0\r\n]*)\r?$/;

/**
 * Parses a status line and headers (bytes as Latin-1, as HTTP defines them). Throws
 * an {@linkcode InvalidResponseError} for a bad status line, a line without a colon,
 * a folded line (obs-fold, which RFC 9112 lets a proxy refuse), a name that is not a
 * token, or a value with a NUL, CR or LF.
 */
export function parseHead(bytes: Uint8Array): Answer {
  // Lines end in CRLF, or in a bare LF (RFC 9112 2.2): HEADER_LINE takes the CR.
  const lines = fromLatin1(bytes).split("\n");
  const first = lines[0]?.replace(/\r$/, "") ?? "";
  // The reason phrase as RFC 9112 has it (which the Response constructor checks).
  const status = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: ([\t\x20-\x7e\x80-\xff]*))?$/
    .exec(first);
  if (!status) {
    throw new InvalidResponseError(
      `Invalid status line from the remote: "${preview(first)}"`,
    );
  }
  const headers: [string, string][] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = HEADER_LINE.exec(lines[i]!);
    if (!line) throw invalidHeaderLine(lines[i]!.replace(/\r$/, ""));
    headers.push([line[1]!.toLowerCase(), line[2]!.trim()]);
  }
  return {
    http10: status[1] === "0",
    status: Number(status[2]),
    statusText: status[3] ?? "",
    headers,
  };
}

/** A control character other than HTAB, which RFC 9110 allows in no header value. */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROL = /[\0-\x08\x0a-\x1f\x7f]/;

/**
 * Throws an {@linkcode InvalidResponseError} when a header value holds a control
 * character. An answer handed on as a `Response` must not: `fetch` refuses such an
 * answer, and `Deno.serve` fails writing the value on (a relayed answer would take the
 * process down). Whole answers read by a program keep the values as sent.
 */
export function refuseControlCharacters(headers: [string, string][]): void {
  const found = headers.find(([, value]) => CONTROL.test(value));
  if (found) {
    throw new InvalidResponseError(
      `Invalid header line from the remote: the value of "${
        found[0]
      }" holds a control character`,
    );
  }
}

/** What is wrong with a header line {@linkcode HEADER_LINE} refused. */
function invalidHeaderLine(line: string): InvalidResponseError {
  const colon = line.indexOf(":");
  const name = line.slice(0, Math.max(colon, 0)).trimEnd();
  // Values are not quoted: they may carry secrets.
  const problem = line.startsWith(" ") || line.startsWith("\t")
    ? "a folded line (obs-fold)"
    : colon < 0
    ? "no colon"
    : !/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)
    ? `name "${preview(name)}"`
    : `the value of "${name}" holds a NUL, CR or LF`;
  return new InvalidResponseError(
    `Invalid header line from the remote: ${problem}`,
  );
}

/**
 * Encodes a string of code points up to 255 into `target`; returns the byte count,
 * or -1 when it does not fit.
 */
export function latin1Into(text: string, target: Uint8Array): number {
  if (text.length > target.length) return -1;
  // ASCII (nearly every head) is the same in UTF-8: the native encoder is faster.
  const { read, written } = UTF8.encodeInto(text, target);
  if (read === text.length && written === text.length) return written;
  for (let i = 0; i < text.length; i++) target[i] = text.charCodeAt(i);
  return text.length;
}

/** Encodes a string of code points up to 255 as bytes. */
export function latin1(text: string): Uint8Array {
  const utf8 = UTF8.encode(text);
  // As long as the string only when every character is ASCII.
  if (utf8.length === text.length) return utf8;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

const UTF8 = new TextEncoder();

const ASCII = new TextDecoder();

function fromLatin1(bytes: Uint8Array): string {
  // Heads are nearly always ASCII, which the native decoder turns into a string
  // several times faster than String.fromCharCode over spread arguments.
  let ascii = true;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i]! > 127) {
      ascii = false;
      break;
    }
  }
  if (ascii) return ASCII.decode(bytes);
  let text = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return text;
}
