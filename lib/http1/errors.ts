/**
 * The failures of the HTTP/1.1 transport, one class each with a `code`, as undici's
 * `lib/core/errors.js` has them: the code that uses the client branches on the class
 * (or the code), never on a message or on `TypeError`.
 *
 * - The server's response breaks HTTP/1.1: an {@linkcode InvalidResponseError},
 *   one subclass per part ({@linkcode InvalidStatusError},
 *   {@linkcode InvalidHeaderError}, {@linkcode HeadersOverflowError},
 *   {@linkcode InvalidFramingError}, {@linkcode ContentDecodingError}).
 * - The connection failed: {@linkcode SocketError} (connect, read or write), or
 *   {@linkcode ConnectionClosedError} (closed before the head was whole, or at a
 *   chunk line) or {@linkcode ResponseLengthMismatchError} (closed within a body of
 *   a declared length).
 * - The request could not be sent: {@linkcode InvalidRequestError},
 *   {@linkcode RequestLengthMismatchError}, {@linkcode UnsupportedSchemeError}.
 * - The outbound proxy refused it: {@linkcode ProxyRefusedError} (a proxy that
 *   cannot be reached is a {@linkcode SocketError} naming it).
 *
 * Time limits are the user's: an aborted request rejects with its signal's reason.
 *
 * @module
 */

/**
 * The server responded, but not in HTTP/1.1. A `TypeError`, as `fetch` reports
 * such responses, so code that only knows `fetch` treats it alike; code that tells
 * it from a network failure (a proxy responding 502) checks for this class.
 *
 * @example
 * ```ts
 * import { createHttp1Client } from "./client.ts";
 *
 * const client = createHttp1Client();
 * try {
 *   await client.request("http://127.0.0.1:8080/");
 * } catch (error) {
 *   if (error instanceof InvalidResponseError) {
 *     // the server is up, but its response is broken: error.code says where
 *   }
 * }
 * ```
 */
export class InvalidResponseError extends TypeError {
  /** What is broken, for the code that catches it and for logs. */
  readonly code: string = "HTTP1_INVALID_RESPONSE";
  /** Builds the error; `message` says what is wrong, e.g. `Invalid status line from the server`. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "InvalidResponseError";
  }
}

/**
 * A status line that is not `HTTP/1.x NNN reason`, or a `101 Switching Protocols`
 * nobody asked for.
 *
 * @example
 * ```ts
 * new InvalidStatusError("Invalid status line from the server").code; // "HTTP1_INVALID_STATUS"
 * ```
 */
export class InvalidStatusError extends InvalidResponseError {
  /** `"HTTP1_INVALID_STATUS"`. */
  override readonly code: string = "HTTP1_INVALID_STATUS";
  /** Builds the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "InvalidStatusError";
  }
}

/**
 * A header or trailer line that is not a well-formed field line (no colon, a folded
 * line, a bad name, a control character, a bare LF), or a trailer that frames the
 * body.
 *
 * @example
 * ```ts
 * new InvalidHeaderError("Invalid header line from the server: no colon").code; // "HTTP1_INVALID_HEADER"
 * ```
 */
export class InvalidHeaderError extends InvalidResponseError {
  /** `"HTTP1_INVALID_HEADER"`. */
  override readonly code: string = "HTTP1_INVALID_HEADER";
  /** Builds the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "InvalidHeaderError";
  }
}

/**
 * A response head, trailer section or chunk line larger than the client reads.
 *
 * @example
 * ```ts
 * new HeadersOverflowError("Head too large").code; // "HTTP1_HEADERS_OVERFLOW"
 * ```
 */
export class HeadersOverflowError extends InvalidResponseError {
  /** `"HTTP1_HEADERS_OVERFLOW"`. */
  override readonly code: string = "HTTP1_HEADERS_OVERFLOW";
  /** Builds the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "HeadersOverflowError";
  }
}

/**
 * A body framed in a way that could be read two ways (RFC 9112 section 6.3):
 * `Content-Length` and `Transfer-Encoding` at odds, a bad chunk size, a chunk
 * longer than its size.
 *
 * @example
 * ```ts
 * new InvalidFramingError("Invalid framing from the server: chunked applied twice").code; // "HTTP1_INVALID_FRAMING"
 * ```
 */
export class InvalidFramingError extends InvalidResponseError {
  /** `"HTTP1_INVALID_FRAMING"`. */
  override readonly code: string = "HTTP1_INVALID_FRAMING";
  /** Builds the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "InvalidFramingError";
  }
}

/**
 * A body that its `Content-Encoding` (gzip, deflate, br) does not decode.
 *
 * @example
 * ```ts
 * new ContentDecodingError("Invalid gzip body from the server").code; // "HTTP1_CONTENT_DECODING"
 * ```
 */
export class ContentDecodingError extends InvalidResponseError {
  /** `"HTTP1_CONTENT_DECODING"`. */
  override readonly code: string = "HTTP1_CONTENT_DECODING";
  /** Builds the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "ContentDecodingError";
  }
}

/**
 * A coded body (gzip, deflate, br) that decodes to more bytes than the client was
 * told to take (`maxDecodedBytes`): a decompression bomb, or a body larger than the
 * user allows. Not an invalid response: the server may be right, but it is too
 * much.
 *
 * @example
 * ```ts
 * new DecodedTooLargeError("br", 1024).code; // "HTTP1_DECODED_TOO_LARGE"
 * ```
 */
export class DecodedTooLargeError extends TypeError {
  /** `"HTTP1_DECODED_TOO_LARGE"`. */
  readonly code = "HTTP1_DECODED_TOO_LARGE";
  /** The body's coding (`"br"`). */
  readonly coding: string;
  /** The bound passed, in bytes. */
  readonly maxBytes: number;
  /** Builds the error for a body in `coding` that decoded to over `maxBytes`. */
  constructor(coding: string, maxBytes: number) {
    super(`The server's ${coding} body decodes to over ${maxBytes} bytes`);
    this.name = "DecodedTooLargeError";
    this.coding = coding;
    this.maxBytes = maxBytes;
  }
}

/**
 * The server closed the connection before the response ended (before its head
 * was whole, or between chunks). Its code is Node's for a connection that ended
 * without a response ("socket hang up"), which retry logic such as the AWS SDK's
 * treats as transient.
 *
 * @example
 * ```ts
 * new ConnectionClosedError(0).code; // "ECONNRESET"
 * ```
 */
export class ConnectionClosedError extends Error {
  /** `"ECONNRESET"`. */
  readonly code = "ECONNRESET";
  /** Bytes of the unfinished response already received. */
  readonly received: number;
  /** Builds the error; `received` bytes of the response had come. */
  constructor(received: number) {
    super("Connection closed by the server");
    this.name = "ConnectionClosedError";
    this.received = received;
  }
}

/**
 * The server closed the connection within a body of a declared length (its
 * `Content-Length` or a chunk's size): fewer bytes came than declared.
 *
 * @example
 * ```ts
 * new ResponseLengthMismatchError().code; // "HTTP1_RESPONSE_LENGTH_MISMATCH"
 * ```
 */
export class ResponseLengthMismatchError extends TypeError {
  /** `"HTTP1_RESPONSE_LENGTH_MISMATCH"`. */
  readonly code = "HTTP1_RESPONSE_LENGTH_MISMATCH";
  /** Builds the error. */
  constructor() {
    super("The server closed the connection mid-response");
    this.name = "ResponseLengthMismatchError";
  }
}

/**
 * Connecting to the server, or reading or writing its connection, failed (refused,
 * reset, a name that does not resolve, ...). `cause` is the platform's error, whose
 * message and `code` (`ECONNREFUSED`, ...) it carries.
 *
 * @example
 * ```ts
 * const cause = new Deno.errors.ConnectionRefused("Connection refused");
 * new SocketError(cause).message; // "Connection refused"
 * ```
 */
export class SocketError extends Error {
  /** The platform error's code when it has one, else `"HTTP1_SOCKET"`. */
  readonly code: string;
  /**
   * Wraps `cause`; `proxy` (masked) names the outbound proxy when it is the
   * connection to that proxy that failed.
   */
  constructor(cause: unknown, proxy?: string) {
    const text = cause instanceof Error ? cause.message : String(cause);
    super(proxy === undefined ? text : `Proxy "${proxy}": ${text}`, { cause });
    this.name = "SocketError";
    const code = (cause as { code?: unknown } | null)?.code;
    this.code = typeof code === "string" ? code : "HTTP1_SOCKET";
  }
}

/**
 * A request the client refuses to send, as `fetch` does: a method or header name
 * that is not a token, a header value holding a NUL, CR, LF or a character beyond
 * Latin-1. Nothing was sent.
 *
 * @example
 * ```ts
 * new InvalidRequestError('Invalid method "G T": not a token').code; // "HTTP1_INVALID_REQUEST"
 * ```
 */
export class InvalidRequestError extends TypeError {
  /** `"HTTP1_INVALID_REQUEST"`. */
  readonly code = "HTTP1_INVALID_REQUEST";
  /** Builds the error. */
  constructor(message: string) {
    super(message);
    this.name = "InvalidRequestError";
  }
}

/**
 * A streamed request body longer or shorter than its declared `Content-Length`; the
 * connection was closed (its excess never went out).
 *
 * @example
 * ```ts
 * new RequestLengthMismatchError("Invalid request body").code; // "HTTP1_REQUEST_LENGTH_MISMATCH"
 * ```
 */
export class RequestLengthMismatchError extends TypeError {
  /** `"HTTP1_REQUEST_LENGTH_MISMATCH"`. */
  readonly code = "HTTP1_REQUEST_LENGTH_MISMATCH";
  /** Builds the error. */
  constructor(message: string) {
    super(message);
    this.name = "RequestLengthMismatchError";
  }
}

/**
 * A URL the pooled client does not serve (anything but `http:`); `createUpstream`
 * sends those to `fetch`.
 *
 * @example
 * ```ts
 * new UnsupportedSchemeError("https:").code; // "HTTP1_UNSUPPORTED_SCHEME"
 * ```
 */
export class UnsupportedSchemeError extends TypeError {
  /** `"HTTP1_UNSUPPORTED_SCHEME"`. */
  readonly code = "HTTP1_UNSUPPORTED_SCHEME";
  /** Builds the error for a URL of `protocol` (`"https:"`). */
  constructor(protocol: string) {
    super(
      `Unsupported URL "${protocol}" for the pooled client: only http: (use createUpstream)`,
    );
    this.name = "UnsupportedSchemeError";
  }
}

/**
 * The outbound proxy refused a request: it responded to a `CONNECT` with a status
 * other than 2xx (407 when it wants credentials, 403 when its rules forbid the
 * origin, 502 when it could not reach it), or to a plain-HTTP request with 407.
 * The message names the proxy (credentials masked) and the origin asked for.
 *
 * @example
 * ```ts
 * const error = new ProxyRefusedError("http://***@127.0.0.1:3128", "example.com:443", 407, "Proxy Authentication Required");
 * error.code; // "HTTP1_PROXY_REFUSED"
 * error.message; // 'Proxy "http://***@127.0.0.1:3128" refused the request to example.com:443: 407 Proxy Authentication Required'
 * ```
 */
export class ProxyRefusedError extends Error {
  /** `"HTTP1_PROXY_REFUSED"`. */
  readonly code = "HTTP1_PROXY_REFUSED";
  /** The proxy's status. */
  readonly status: number;
  /** The proxy's URL, credentials masked. */
  readonly proxy: string;
  /** Builds the error: `proxy` (masked) returned `status` for `target` (`host:port`). */
  constructor(
    proxy: string,
    target: string,
    status: number,
    statusText: string,
  ) {
    super(
      `Proxy "${proxy}" refused the request to ${target}: ${status}${
        statusText ? ` ${statusText}` : ""
      }`,
    );
    this.name = "ProxyRefusedError";
    this.status = status;
    this.proxy = proxy;
  }
}
