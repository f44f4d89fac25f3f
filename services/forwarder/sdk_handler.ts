/**
 * The SQS client's transport on an {@linkcode Exchange} (the pooled HTTP/1.1 client,
 * or `fetch`), instead of the SDK's default handler on the `node:http` compatibility
 * layer.
 *
 * @module
 */
import { type Exchange, fetchExchange } from "../../lib/http1/exchange.ts";

/** The parts of the SDK's HTTP request this handler reads. */
export interface SdkHttpRequest {
  protocol: string;
  hostname: string;
  port?: number;
  path: string;
  query?: Record<string, string | string[] | null>;
  method: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** The SDK's HTTP response, with the whole body read. */
export interface SdkHttpResponse {
  statusCode: number;
  reason?: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** A web `AbortSignal`, or the SDK's older signal shape with `onabort`. */
export type SdkAbortSignal = AbortSignal | {
  readonly aborted: boolean;
  // deno-lint-ignore ban-types
  onabort: Function | null;
};

/** A request handler the SDK accepts as `requestHandler`. */
export interface SdkRequestHandler {
  /** Sends one request; rejects when no reply came or `abortSignal` fired. */
  handle(
    request: SdkHttpRequest,
    options?: { abortSignal?: SdkAbortSignal },
  ): Promise<{ response: SdkHttpResponse }>;
  /** Part of the SDK's handler contract; this handler has nothing to configure. */
  updateHttpClientConfig(key: never, value: never): void;
  /** Part of the SDK's handler contract: no settings. */
  httpHandlerConfigs(): Record<string, never>;
  /** Nothing to release: the transport owns its connection pool. */
  destroy(): void;
}

/** Headers the transport sets itself from the URL and the body. */
const SET_BY_TRANSPORT = new Set(["host", "content-length"]);

/** Percent-encodes as SigV4 canonicalises: RFC 3986 unreserved characters kept. */
const escape = (text: string) =>
  encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );

/** Builds `?a=1&b=2` from the SDK's query map (values not yet encoded). */
function queryString(query: SdkHttpRequest["query"]): string {
  if (!query) return "";
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    const values = value === null
      ? [null]
      : Array.isArray(value)
      ? value
      : [value];
    for (const v of values) {
      parts.push(v === null ? escape(key) : `${escape(key)}=${escape(v)}`);
    }
  }
  return parts.length > 0 ? `?${parts.join("&")}` : "";
}

/** The signal as a web `AbortSignal`, which is what the transport takes. */
function webSignal(signal?: SdkAbortSignal): AbortSignal | undefined {
  if (signal === undefined || signal instanceof AbortSignal) return signal;
  const controller = new AbortController();
  if (signal.aborted) controller.abort();
  else signal.onabort = () => controller.abort();
  return controller.signal;
}

/** The SDK's request body (a string for SQS's JSON protocol) as the transport takes it. */
function requestBody(
  body: unknown,
): string | Uint8Array<ArrayBuffer> | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return new Uint8Array(body);
  throw new TypeError(
    `Unsupported SDK request body: ${Object.prototype.toString.call(body)}`,
  );
}

/**
 * Returns a request handler for the AWS SDK that sends each call through `exchange`
 * and hands the SDK the whole reply body as bytes. SQS replies are small JSON
 * documents, so reading them at once costs nothing, and the SDK parses a byte array
 * without a stream collector. On the pooled HTTP/1.1 client, the forwarder's bare
 * receive + delete loop runs 25–40% faster than on the SDK's default handler
 * (`deno task bench forwarder`, line 1).
 *
 * @example
 * ```ts
 * import { SQSClient } from "@aws-sdk/client-sqs";
 *
 * const client = new SQSClient({ region: "us-east-1", requestHandler: createSdkHandler() });
 * ```
 */
export function createSdkHandler(
  exchange: Exchange = fetchExchange(),
): SdkRequestHandler {
  return {
    async handle(request, options) {
      const port = request.port ? `:${request.port}` : "";
      const url =
        `${request.protocol}//${request.hostname}${port}${request.path}${
          queryString(request.query)
        }`;
      const headers: [string, string][] = [];
      for (const [name, value] of Object.entries(request.headers)) {
        if (!SET_BY_TRANSPORT.has(name.toLowerCase())) {
          headers.push([name, value]);
        }
      }
      const reply = await exchange(url, {
        method: request.method,
        headers,
        body: requestBody(request.body),
        signal: webSignal(options?.abortSignal),
      });
      // A name sent several times is one list, its values joined in order
      // (RFC 9110 5.3), not the last one alone.
      const replyHeaders: Record<string, string> = {};
      for (const [name, value] of reply.headers) {
        replyHeaders[name] = Object.hasOwn(replyHeaders, name)
          ? `${replyHeaders[name]}, ${value}`
          : value;
      }
      return {
        response: {
          statusCode: reply.status,
          reason: reply.statusText,
          headers: replyHeaders,
          body: reply.body,
        },
      };
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs: () => ({}),
    destroy() {},
  };
}
