/**
 * The HTTP/1.1 wire format of the pooled client: request heads out, response heads
 * in.
 *
 * @module
 */
import { preview } from "../preview.ts";
import {
  InvalidHeaderError,
  InvalidRequestError,
  InvalidStatusError,
} from "./errors.ts";

/** A parsed response head. */
export interface ResponseHead {
  /** The response was HTTP/1.0 (no keep-alive). */
  http10: boolean;
  /** Status code. */
  status: number;
  /** Reason phrase. */
  statusText: string;
  /** Header pairs, names in lower case, in order. */
  headers: [string, string][];
}

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

/** A request sent to a forward proxy (absolute-form target). */
export interface ForwardProxy {
  /** `Proxy-Authorization` value, replacing any the request carries. */
  authorization?: string;
}

/** A request head and how its body is framed. */
export interface RequestHead {
  /** Request line, headers and the blank line. */
  text: string;
  /** A streamed body goes out in chunks (its length was not declared). */
  chunked: boolean;
  /** The declared length of a streamed body that is not chunked. */
  length?: number;
}

/**
 * What a header value may not hold: what would end the line (or the string), or a
 * character beyond Latin-1 (not a byte; `fetch` refuses it too).
 */
const LINE_BREAKING = /[\0\r\n\u0100-\uffff]/;

/**
 * The request line and headers. A streamed body keeps a declared `Content-Length`
 * (some servers insist on one) and is chunked otherwise. Throws an
 * `InvalidRequestError` (a `TypeError`, as `fetch` throws), for a method or header name that is not a token, or a header value
 * holding a NUL, CR or LF: nothing is sent.
 */
export function requestHead(
  method: string,
  url: URL,
  headers: HeadersInit | readonly (readonly [string, string])[] | undefined,
  body: RequestBody,
  forward?: ForwardProxy,
): RequestHead {
  if (!TOKEN.test(method)) {
    throw new InvalidRequestError(
      `Invalid method "${preview(method)}": not a token`,
    );
  }
  // Through a forward proxy, the request target is in absolute form (RFC 9112
  // 3.2.2), without the URL's credentials.
  const target = forward
    ? `${url.protocol}//${url.host}${url.pathname}${url.search}`
    : `${url.pathname}${url.search}`;
  let head = `${method} ${target} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  if (forward?.authorization !== undefined) {
    head += `proxy-authorization: ${forward.authorization}\r\n`;
  }
  const pairs: readonly (readonly [string, string])[] = Array.isArray(headers)
    ? headers
    : headers === undefined
    ? []
    : [...new Headers(headers as HeadersInit)];
  let declared: string | undefined;
  for (const [name, value] of pairs) {
    if (!TOKEN.test(name)) {
      throw new InvalidRequestError(
        `Invalid header name "${preview(name)}": not a token`,
      );
    }
    if (LINE_BREAKING.test(value)) {
      // The value is not quoted: it may be a secret.
      throw new InvalidRequestError(
        `Invalid value of header "${name}": it holds a NUL, CR, LF or a character beyond Latin-1`,
      );
    }
    const lower = name.toLowerCase();
    if (lower === "content-length") declared = value.trim();
    else if (
      !FRAMING.has(lower) &&
      !(lower === "proxy-authorization" && forward?.authorization !== undefined)
    ) head += `${name}: ${value}\r\n`;
  }
  let chunked = false;
  let length: number | undefined;
  if (body instanceof ReadableStream) {
    chunked = declared === undefined || !/^\d{1,15}$/.test(declared);
    if (!chunked) length = Number(declared);
    head += chunked
      ? "transfer-encoding: chunked\r\n"
      : `content-length: ${length}\r\n`;
  } else if (body !== null) {
    const length = typeof body === "string"
      ? new TextEncoder().encode(body).length
      : body.length;
    head += `content-length: ${length}\r\n`;
  } else if (method === "POST" || method === "PUT") {
    head += "content-length: 0\r\n";
  }
  return { text: `${head}\r\n`, chunked, length };
}

/** A token (RFC 9110 section 5.6.2): a header name, a method. */
export const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * A well-formed header line (RFC 9112 section 5): a token name right before the
 * colon, then a value of visible characters, blanks, HTAB and obs-text (no control
 * character, which llhttp refuses too).
 */
const HEADER_LINE =
  /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*([\t\x20-\x7e\x80-\xff]*)$/;

/**
 * Parses a status line and headers (bytes as Latin-1, as HTTP defines them; lines
 * end in CRLF). Throws an {@linkcode InvalidStatusError} for a bad status line
 * (`HTTP/1.0` or `HTTP/1.1`, a status from 100 to 599), an
 * {@linkcode InvalidHeaderError} for a line without a colon, a folded line (obs-fold), a name that is not a token or is followed by blanks, or a
 * value with a control character. Values lose their leading and trailing blanks, but
 * for `Content-Length`, whose trailing blanks llhttp refuses and so does the framing.
 */
export function parseHead(bytes: Uint8Array): ResponseHead {
  const lines = fromLatin1(bytes).split("\r\n");
  const first = lines[0] ?? "";
  // The reason phrase as RFC 9112 has it (which the Response constructor checks).
  const status = /^HTTP\/1\.([01]) ([1-5]\d\d)(?: ([\t\x20-\x7e\x80-\xff]*))?$/
    .exec(first);
  if (!status) {
    throw new InvalidStatusError(
      `Invalid status line from the server: "${preview(first)}"`,
    );
  }
  return {
    http10: status[1] === "0",
    status: Number(status[2]),
    statusText: status[3] ?? "",
    headers: parseFields(lines, 1),
  };
}

/**
 * Parses header lines (or trailer lines) `lines[from...]` into pairs, names in lower
 * case; throws an {@linkcode InvalidHeaderError} for a line that is not a
 * well-formed field line.
 */
export function parseFields(
  lines: readonly string[],
  from = 0,
): [string, string][] {
  const headers: [string, string][] = [];
  for (let i = from; i < lines.length; i++) {
    const line = HEADER_LINE.exec(lines[i]!);
    if (!line) throw invalidHeaderLine(lines[i]!);
    const name = line[1]!.toLowerCase();
    const value = line[2]!;
    headers.push([
      name,
      name === "content-length" ? value : value.replace(/[ \t]+$/, ""),
    ]);
  }
  return headers;
}

/** What is wrong with a header line {@linkcode HEADER_LINE} refused. */
function invalidHeaderLine(line: string): InvalidHeaderError {
  const colon = line.indexOf(":");
  const name = line.slice(0, Math.max(colon, 0));
  // Values are not quoted: they may carry secrets.
  const problem = line.startsWith(" ") || line.startsWith("\t")
    ? "a folded line (obs-fold)"
    : /[\r\n]/.test(line) && !/[\r\n]/.test(name)
    ? `the value of "${preview(name)}" holds a CR or LF`
    : colon < 0
    ? /[\r\n]/.test(line) ? "a line ending in a bare LF or CR" : "no colon"
    : /^[^ \t]+[ \t]+$/.test(name) && TOKEN.test(name.trimEnd())
    ? `blanks after the name "${preview(name.trimEnd())}"`
    : !TOKEN.test(name)
    ? `name "${preview(name)}"`
    : `the value of "${name}" holds a control character`;
  return new InvalidHeaderError(
    `Invalid header line from the server: ${problem}`,
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
