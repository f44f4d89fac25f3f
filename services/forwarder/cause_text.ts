/**
 * How an error reads inside one of the forwarder's log lines.
 *
 * @module
 */
import { STATUS_CODES } from "node:http";
import { errorText } from "../../lib/log.ts";

/** The advice the AWS SDK appends to an error when a reply could not be parsed. */
const SDK_PARSE_ADVICE = /\s*Deserialization error: to see the raw response/;

/** The parts of an AWS SDK error this module reads. */
interface SdkErrorFields {
  $metadata?: { httpStatusCode?: number };
  $response?: { statusCode?: number; headers?: Record<string, string> };
}

/**
 * The text of an error for the middle of a log line, before `; what happens next`:
 * {@linkcode errorText} without its final period (the SDK's "The specified queue does
 * not exist." would read "exist.; retrying"). An AWS SDK error about a reply it could
 * not parse (an HTML page from a proxy in front of the queue) tells the reply's HTTP
 * status and content type instead of the SDK's advice to inspect a hidden field.
 *
 * @example
 * ```ts
 * causeText(new Error("The specified queue does not exist.")); // "The specified queue does not exist"
 * ```
 */
export function causeText(error: unknown): string {
  const text = errorText(error);
  if (error instanceof Error && SDK_PARSE_ADVICE.test(text)) {
    const { $metadata, $response } = error as Error & SdkErrorFields;
    const status = $metadata?.httpStatusCode ?? $response?.statusCode;
    if (status !== undefined) {
      const name = STATUS_CODES[status];
      const type = $response?.headers?.["content-type"];
      return `HTTP ${status}${name ? ` ${name}` : ""}${
        type ? ` (${type})` : ""
      } that is not an SQS reply: a proxy in the way, or QUEUE_URL or QUEUE_ENDPOINT_URL not an SQS server`;
    }
    return text.slice(0, text.search(SDK_PARSE_ADVICE));
  }
  return text.replace(/\.+$/, "");
}
