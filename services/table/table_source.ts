/**
 * The table client's outbound call: fetch the data API and turn its reply into a table.
 *
 * @module
 */
import {
  BodyTooLargeError,
  boundedBytes,
  responseBytes,
} from "../../lib/bounded_body.ts";
import { deadline } from "../../lib/deadline.ts";
import { errorText } from "../../lib/log.ts";
import { maskSecrets } from "../../lib/logging.ts";
import { checkJsonDepth, JsonTooDeepError } from "./check_json_depth.ts";
import { TableFetchError } from "./table_fetch_error.ts";
import { TableTooLargeError } from "./table_too_large_error.ts";
import { type Table, toTable } from "./to_table.ts";

/** Options of {@linkcode createTableSource}. */
export interface TableSourceOptions {
  /** URL of the data API. */
  apiUrl: string;
  /** Bearer token; the `Authorization` header is sent only when set. */
  apiKey?: string;
  /** The fetch to use. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Longest wait for the reply. @default 15000 */
  timeoutMs?: number;
  /**
   * Bound on the bytes of the reply's body, decoded (`TABLE_SOURCE_MAX_BYTES`), and
   * on the cells (rows × columns) of its table: past either, the load fails.
   * @default 64 MiB
   */
  maxBytes?: number;
  /**
   * This table's entry of the `Via` header (RFC 9110) sent to the data API, so the
   * table knows a request of its own that comes back (`TableAppOptions.pseudonym`).
   * @default none
   */
  via?: string;
}

/**
 * Deepest nesting of a reply: far past the 32 levels flattened into columns, and
 * shallow enough that showing a value as JSON text stays fast.
 */
const MAX_DEPTH = 10_000;

/** Bytes of an error reply read for its message. */
const ERROR_BODY_BYTES = 64 * 1024;

/** The API URL without credentials or query (which could hold a key), for messages. */
function shownUrl(apiUrl: string): string {
  try {
    const url = new URL(apiUrl);
    return `${url.origin}${url.pathname}`;
  } catch {
    return "(URL not shown)";
  }
}

/**
 * The data API's `{"message"}` of a refusal, its `secrets` (the API key, which an
 * API may echo) masked before it is cut to 200 characters.
 */
async function serverMessage(
  response: Response,
  secrets: readonly string[],
): Promise<string> {
  const bytes = await boundedBytes(response.body, ERROR_BODY_BYTES)
    .catch(() => new Uint8Array(0));
  try {
    const body = JSON.parse(new TextDecoder().decode(bytes));
    if (typeof body?.message === "string") {
      const chars = [...maskSecrets(body.message, secrets)];
      return `: ${chars.slice(0, 200).join("")}`;
    }
  } catch {
    // not JSON: the status says enough
  }
  return "";
}

/**
 * Returns a function that fetches the data API and applies the reply rules.
 *
 * @throws {TableFetchError} when the API cannot be reached, times out, returns an HTTP
 * error status (the message contains the numeric code), a body over `maxBytes`, one
 * that is not JSON, nested deeper than 10,000 levels, or whose table has more than
 * `maxBytes` cells.
 * @example
 * ```ts
 * const loadTable = createTableSource({
 *   apiUrl: "http://127.0.0.1:8003/data",
 *   apiKey: Deno.env.get("API_KEY"),
 * });
 * const { columns, rows } = await loadTable();
 * ```
 */
export function createTableSource(
  options: TableSourceOptions,
): () => Promise<Table> {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const where = `"${shownUrl(options.apiUrl)}"`;
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "Accept": "application/json",
    // Deno's fetch decodes only the codings it asked for: asked for none, it passes a
    // coded body as it came, decoded here in bounded parts (responseBytes).
    "Accept-Encoding": "identity",
  };
  if (options.apiKey) headers["Authorization"] = `Bearer ${options.apiKey}`;
  if (options.via) headers["Via"] = options.via;
  const secrets = options.apiKey ? [options.apiKey] : [];
  return async () => {
    let response: Response | undefined;
    let bytes: Uint8Array<ArrayBuffer>;
    // Cleared when the reply is read: an `AbortSignal.timeout` would keep its timer,
    // and through the signal the request's state, until it fires (measured: a 100,000
    // request soak grew the role's memory 1.69x).
    const limit = deadline(timeoutMs);
    try {
      response = await doFetch(options.apiUrl, {
        headers,
        signal: limit.signal,
      });
      if (!response.ok) {
        throw new TableFetchError(
          `The data API at ${where} returned HTTP ${response.status} ${response.statusText}`
            .trimEnd() + await serverMessage(response, secrets),
          { status: response.status },
        );
      }
      bytes = await responseBytes(response, maxBytes);
    } catch (error) {
      if (error instanceof TableFetchError) throw error;
      if (error instanceof BodyTooLargeError) {
        throw new TableFetchError(
          `The data API at ${where} returned a body over ${maxBytes} bytes (TABLE_SOURCE_MAX_BYTES)`,
          { status: response!.status, cause: error },
        );
      }
      const timedOut = limit.expired();
      const reason = errorText(error).replace(/https?:\/\/[^\s)]+/g, shownUrl);
      if (!timedOut && response !== undefined) {
        // It responded: a coding that does not decode, or a body cut short.
        throw new TableFetchError(
          `The data API at ${where} returned a body that cannot be read: ${reason}`,
          { status: response.status, cause: error },
        );
      }
      throw new TableFetchError(
        timedOut
          ? `The data API at ${where} did not respond within ${timeoutMs} ms`
          : `Cannot reach the data API at ${where}: ${reason}`,
        { cause: error },
      );
    } finally {
      limit.clear();
    }
    let value: unknown;
    try {
      checkJsonDepth(bytes, MAX_DEPTH);
    } catch (error) {
      if (!(error instanceof JsonTooDeepError)) throw error;
      throw new TableFetchError(
        `The data API at ${where} returned JSON nested deeper than ${MAX_DEPTH} levels`,
        { status: response.status, cause: error },
      );
    }
    try {
      value = JSON.parse(new TextDecoder("utf-8").decode(bytes));
    } catch (error) {
      throw new TableFetchError(
        `The data API at ${where} returned a body that is not JSON: ${
          errorText(error)
        }`,
        { status: response.status, cause: error },
      );
    }
    try {
      return toTable(value, { maxCells: maxBytes });
    } catch (error) {
      if (!(error instanceof TableTooLargeError)) throw error;
      throw new TableFetchError(
        `The data API at ${where} returned a table of ${error.rows} rows and ${error.columns} columns, over ${maxBytes} cells (TABLE_SOURCE_MAX_BYTES)`,
        { status: response.status, cause: error },
      );
    }
  };
}
