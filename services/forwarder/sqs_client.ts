/**
 * Builds the SQS client from the forwarder's settings.
 *
 * @module
 */
import { SQSClient, type SQSClientConfig } from "@aws-sdk/client-sqs";
import { fromIni } from "@aws-sdk/credential-providers";
import type { Exchange } from "../../lib/http1/exchange.ts";
import type { Log } from "../../lib/log.ts";
import { queueEndpoint } from "./queue_url.ts";
import { createSdkHandler } from "./sdk_handler.ts";
import type { CredentialSettings } from "./settings.ts";

/** What {@linkcode createSqsClient} reads. */
export interface SqsClientSettings extends CredentialSettings {
  readonly QUEUE_REGION: string;
  readonly QUEUE_URL: string;
  readonly QUEUE_ENDPOINT_URL?: string;
  /**
   * The AWS SDK's own variables for the shared config files, as the role read them
   * (from `.env` or `--env-file` too, which the SDK alone would not see: it reads
   * the process environment). Unset: the SDK's defaults.
   */
  readonly AWS_SHARED_CREDENTIALS_FILE?: string;
  readonly AWS_CONFIG_FILE?: string;
  readonly AWS_PROFILE?: string;
}

/** Whether an SDK log entry is the record of a failed command. */
function isCommandFailure(entry: unknown): boolean {
  return typeof entry === "object" && entry !== null &&
    "commandName" in entry && "error" in entry;
}

/** Joins the SDK's logger arguments into one line. */
function line(parts: unknown[]): string {
  return parts.map((part) =>
    typeof part === "string"
      ? part
      : part instanceof Error
      ? part.message
      : JSON.stringify(part)
  ).join(" ");
}

/**
 * The SDK's logger, writing to `log` from WARNING up. It has no `info` on purpose: the
 * SDK calls `logger?.info?.(...)` after every command with a copy of its input and
 * output filtered for secrets, built only when `info` exists: a cost on every call for
 * a line that would be dropped (5% of the forwarder's CPU per message, measured).
 */
function sdkLogger(log: Log): NonNullable<SQSClientConfig["logger"]> {
  const logger = {
    debug: () => {},
    warn: (...parts: unknown[]) => log.warn(line(parts)),
    error: (...parts: unknown[]) => {
      // A failed command is reported by the caller, with its context.
      if (!isCommandFailure(parts[0])) log.error(line(parts));
    },
  };
  return logger as NonNullable<SQSClientConfig["logger"]>;
}

/**
 * Returns an SQS client with the configured credentials (both keys, or else the named
 * profile of the shared AWS config files; a profile set beside both keys is ignored
 * with a WARNING) whose own logging only reaches `log` from
 * WARNING up. Its calls go through `exchange` (see `sdk_handler.ts`; `fetch` when not given).
 */
export function createSqsClient(
  settings: SqsClientSettings,
  log: Log,
  exchange?: Exchange,
): SQSClient {
  const keys = settings.QUEUE_ACCESS_KEY_ID !== undefined &&
    settings.QUEUE_SECRET_ACCESS_KEY !== undefined;
  if (keys && settings.QUEUE_PROFILE !== undefined) {
    log.warn(
      `QUEUE_PROFILE "${settings.QUEUE_PROFILE}" is ignored: QUEUE_ACCESS_KEY_ID and QUEUE_SECRET_ACCESS_KEY are set (unset them to use the profile)`,
    );
  }
  const client = new SQSClient({
    region: settings.QUEUE_REGION,
    endpoint: queueEndpoint(
      settings.QUEUE_URL,
      settings.QUEUE_REGION,
      settings.QUEUE_ENDPOINT_URL,
    ),
    credentials: keys
      ? {
        accessKeyId: settings.QUEUE_ACCESS_KEY_ID!,
        secretAccessKey: settings.QUEUE_SECRET_ACCESS_KEY!,
      }
      : fromIni({
        profile: settings.QUEUE_PROFILE ?? settings.AWS_PROFILE,
        filepath: settings.AWS_SHARED_CREDENTIALS_FILE,
        configFilepath: settings.AWS_CONFIG_FILE,
      }),
    logger: sdkLogger(log),
    requestHandler: createSdkHandler(exchange),
  });
  // The SDK rebuilds its user-agent sections on every call, asking the system for
  // its release each time (2% of the forwarder's CPU, measured); they never change.
  const provider = client.config.defaultUserAgentProvider;
  let sections: ReturnType<typeof provider> | undefined;
  client.config.defaultUserAgentProvider = () => sections ??= provider();
  return client;
}
