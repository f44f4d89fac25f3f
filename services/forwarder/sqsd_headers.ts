/**
 * The headers the Elastic Beanstalk worker daemon (sqsd) sends with each message
 * (`FORWARD_METADATA=sqsd`), for apps written for Beanstalk workers.
 *
 * @module
 */
import type { Log } from "../../lib/log.ts";
import type { QueueMessage } from "./sqs_queue.ts";

/** The system attributes the headers are made of, as a receive asks for them. */
export const SQSD_SYSTEM_ATTRIBUTES = [
  "ApproximateFirstReceiveTimestamp",
  "ApproximateReceiveCount",
  "SenderId",
  "SentTimestamp",
] as const;

/** A header name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A header value sent as it is: printable ASCII, spaces and tabs inside. */
const VALUE = /^(?:[\x21-\x7e](?:[\t\x20-\x7e]*[\x21-\x7e])?)?$/;

/** Milliseconds since the epoch (as SQS gives them) as ISO 8601 UTC seconds. */
function isoSeconds(milliseconds: string | undefined): string | undefined {
  const ms = Number(milliseconds);
  if (milliseconds === undefined || !Number.isFinite(ms)) return undefined;
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(
    ".000Z",
    "Z",
  );
}

/**
 * Returns the function giving a message's `X-Aws-Sqsd-*` headers: `Msgid`, `Queue`
 * (`queueName`), `First-Received-At` and `Sent-At` (ISO 8601, UTC, whole seconds),
 * `Receive-Count`, `Sender-Id`, and `Attr-<name>` for each String or Number message
 * attribute (custom types such as `Number.int` included). A Binary attribute is
 * skipped with a DEBUG line; a name or value that cannot travel as a header (a
 * control or non-ASCII character, blanks around it) with a WARNING, never sent raw.
 * A system attribute the queue did not give is left out.
 *
 * @example
 * ```ts
 * import { createLog } from "../../lib/log.ts";
 * import type { QueueMessage } from "./sqs_queue.ts";
 *
 * declare const message: QueueMessage;
 * const sqsdHeaders = createSqsdHeaders({ queueName: "jobs", log: createLog("forwarder") });
 * sqsdHeaders(message); // [["X-Aws-Sqsd-Msgid", "5fea7756-..."], ["X-Aws-Sqsd-Queue", "jobs"], ...]
 * ```
 */
export function createSqsdHeaders(options: {
  queueName: string;
  log: Log;
}): (message: QueueMessage) => [string, string][] {
  const { queueName, log } = options;
  return (message) => {
    const system = message.systemAttributes ?? {};
    const headers: [string, string][] = [
      ["X-Aws-Sqsd-Msgid", message.id],
      ["X-Aws-Sqsd-Queue", queueName],
    ];
    const add = (name: string, value: string | undefined) => {
      if (value !== undefined) headers.push([name, value]);
    };
    add(
      "X-Aws-Sqsd-First-Received-At",
      isoSeconds(system.ApproximateFirstReceiveTimestamp),
    );
    add("X-Aws-Sqsd-Sent-At", isoSeconds(system.SentTimestamp));
    add("X-Aws-Sqsd-Receive-Count", system.ApproximateReceiveCount);
    add("X-Aws-Sqsd-Sender-Id", system.SenderId);
    for (
      const [name, attribute] of Object.entries(message.messageAttributes ?? {})
    ) {
      const type = attribute.dataType;
      if (!/^(?:String|Number)(?:\.|$)/.test(type)) {
        log.debug(
          `Message attribute "${name}" of message ${message.id} is ${type}: not sent as a header`,
        );
        continue;
      }
      const value = attribute.stringValue ?? "";
      if (!TOKEN.test(name) || !VALUE.test(value)) {
        log.warn(
          `Message attribute ${
            JSON.stringify(name)
          } of message ${message.id} cannot be an HTTP header (its name must be a token, its value printable ASCII): not sent`,
        );
        continue;
      }
      headers.push([`X-Aws-Sqsd-Attr-${name}`, value]);
    }
    return headers;
  };
}
