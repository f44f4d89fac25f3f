/**
 * The table client's outbound call: fetch the data API and turn its reply into a table.
 *
 * @module
 */
import { errorText } from "../../lib/log.ts";
import { TableFetchError } from "./table_fetch_error.ts";
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
}

/** The API URL without credentials or query (which could hold a key), for messages. */
function shownUrl(apiUrl: string): string {
  try {
    const url = new URL(apiUrl);
    return `${url.origin}${url.pathname}`;
  } catch {
    return "(URL not shown)";
  }
}

async function serverMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text);
    if (typeof body?.message === "string") {
      return `: ${body.message.slice(0, 200)}`;
    }
  } catch {
    // not JSON: the status says enough
  }
  return "";
}

/**
 * Returns a function that fetches the data API and applies the reply rules.
 *
 * @throws {TableFetchError} when the API cannot be reached, times out, answers an HTTP
 * error status (the message contains the numeric code) or a body that is not JSON.
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
  const where = `"${shownUrl(options.apiUrl)}"`;
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "Accept": "application/json",
  };
  if (options.apiKey) headers["Authorization"] = `Bearer ${options.apiKey}`;
  return async () => {
    let response: Response;
    let bytes: ArrayBuffer;
    try {
      response = await doFetch(options.apiUrl, {
        headers,
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) {
        throw new TableFetchError(
          `The data API at ${where} answered HTTP ${response.status} ${response.statusText}`
            .trimEnd() + await serverMessage(response),
          { status: response.status },
        );
      }
      bytes = await response.arrayBuffer();
    } catch (error) {
      if (error instanceof TableFetchError) throw error;
      const timedOut = error instanceof DOMException &&
        error.name === "TimeoutError";
      throw new TableFetchError(
        timedOut
          ? `The data API at ${where} did not answer within ${timeoutMs} ms`
          : `Cannot reach the data API at ${where}: ${
            errorText(error).replace(/https?:\/\/[^\s)]+/g, shownUrl)
          }`,
        { cause: error },
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder("utf-8").decode(bytes));
    } catch (error) {
      throw new TableFetchError(
        `The data API at ${where} answered a body that is not JSON: ${
          errorText(error)
        }`,
        { status: response.status, cause: error },
      );
    }
    return toTable(value);
  };
}
