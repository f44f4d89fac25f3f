/**
 * Sends one call of the {@linkcode Gzaas} client and classifies its failures.
 *
 * @module
 */
import { GzaasError } from "./gzaas_error.ts";

/** How requests are sent: the fetch to use, the time-out and the bound on a reply. */
export interface Transport {
  fetch: typeof fetch;
  timeoutMs: number;
  maxReplyBytes: number;
}

/** One call: what it is (for messages), where, how, and which statuses succeed. */
export interface Call {
  what: string;
  url: string;
  init: RequestInit;
  okStatuses: readonly number[];
  signal?: AbortSignal;
}

/** A successful reply: its status and decoded JSON body. */
export interface Reply {
  status: number;
  value: unknown;
}

/**
 * Sends `call` and resolves with its status and decoded JSON body when the status is one of
 * `okStatuses`; rejects with a {@linkcode GzaasError} otherwise.
 */
export async function requestJson(
  transport: Transport,
  call: Call,
): Promise<Reply> {
  const { status, text } = await send(transport, call);
  const body = parseJson(text);
  if (status >= 200 && status < 300 && !call.okStatuses.includes(status)) {
    throw new GzaasError(
      `Gzaas API responded to ${call.what} with the unexpected status ${status}`,
      { kind: "invalid-reply", status },
    );
  }
  if (!call.okStatuses.includes(status)) {
    const errorMessage = serverMessage(body);
    throw new GzaasError(
      `Gzaas API returned HTTP ${status} to ${call.what}${
        errorMessage ? `: ${errorMessage}` : ""
      }`,
      { kind: "http", status, errorMessage },
    );
  }
  if (body === undefined) {
    throw new GzaasError(
      `Gzaas API returned HTTP ${status} to ${call.what} with invalid JSON`,
      { kind: "invalid-reply", status },
    );
  }
  return { status, value: body.value };
}

/** The server's `errorMessage` member, when the body has one. */
function serverMessage(
  body: { value: unknown } | undefined,
): string | undefined {
  const value = body?.value;
  if (typeof value !== "object" || value === null) return undefined;
  const message = (value as Record<string, unknown>).errorMessage;
  return typeof message === "string" && message !== "" ? message : undefined;
}

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

async function send(
  transport: Transport,
  call: Call,
): Promise<{ status: number; text: string }> {
  const { signal } = call;
  if (signal?.aborted) throw aborted(call.what, signal.reason);
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, transport.timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    // The body is read under the same signal: the time-out covers the whole reply.
    const response = await transport.fetch(call.url, {
      ...call.init,
      signal: controller.signal,
    });
    const bytes = await boundedBytes(response.body, transport.maxReplyBytes);
    if (bytes === undefined) {
      throw new GzaasError(
        `Gzaas API responded to ${call.what} with a body over ${transport.maxReplyBytes} bytes`,
        { kind: "too-large", status: response.status },
      );
    }
    return { status: response.status, text: new TextDecoder().decode(bytes) };
  } catch (error) {
    if (error instanceof GzaasError) throw error;
    if (timedOut) {
      throw new GzaasError(
        `Gzaas API did not respond to ${call.what} within ${transport.timeoutMs} ms`,
        { kind: "timeout", cause: error },
      );
    }
    if (signal?.aborted) throw aborted(call.what, signal.reason);
    throw new GzaasError(
      `Gzaas API unreachable for ${call.what}: ${reasonOf(error)}`,
      { kind: "network", cause: error },
    );
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * The bytes of `body`, or `undefined` as soon as they pass `maxBytes` (the rest is
 * not read: the stream is cancelled). The library imports nothing outside its
 * folder, so this is its own copy of the bounded read of `lib/bounded_body.ts`.
 */
async function boundedBytes(
  body: ReadableStream<Uint8Array> | null,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    parts.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return bytes;
}

function aborted(what: string, reason: unknown): GzaasError {
  return new GzaasError(`${what} aborted by the caller`, {
    kind: "aborted",
    cause: reason,
  });
}

/** The message of a thrown value, with its cause's (fetch puts the reason there). */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error
    ? `${error.message}: ${error.cause.message}`
    : error.message;
}
