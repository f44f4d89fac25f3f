/**
 * The start-up check that QUEUE_PROFILE gives credentials, bounded in time.
 *
 * @module
 */
import { deadline, raceSignal } from "../../lib/deadline.ts";
import { errorText } from "../../lib/log.ts";

/**
 * Longest wait for a profile's credentials at start. A `credential_process` (aws-vault,
 * a password manager's CLI, an SSO token refresh) responds within seconds; one that
 * waits for input nobody can give a service (an MFA code, a browser login) would
 * otherwise hold start-up for ever. 30 s leaves a slow one ample time.
 */
export const PROFILE_CREDENTIALS_TIMEOUT_MS = 30_000;

/** Options of {@linkcode checkProfileCredentials}. */
export interface ProfileCredentialsOptions {
  /** The QUEUE_PROFILE value, for the error. */
  profile: string;
  /** Resolves the profile's credentials (the SQS client's provider). */
  credentials: () => Promise<unknown>;
  /** @default {@linkcode PROFILE_CREDENTIALS_TIMEOUT_MS} */
  timeoutMs?: number;
}

/**
 * Resolves once the profile gave credentials. Rejects, naming QUEUE_PROFILE and what
 * to do, when it gives none or does not respond within the time limit (a retry cannot
 * fix either, so start-up stops).
 *
 * @example
 * ```ts
 * import { SQSClient } from "@aws-sdk/client-sqs";
 * import { fromIni } from "@aws-sdk/credential-providers";
 *
 * const client = new SQSClient({ credentials: fromIni({ profile: "prod" }) });
 * await checkProfileCredentials({
 *   profile: "prod",
 *   credentials: client.config.credentials,
 * });
 * ```
 */
export async function checkProfileCredentials(
  options: ProfileCredentialsOptions,
): Promise<void> {
  const { profile } = options;
  const timeoutMs = options.timeoutMs ?? PROFILE_CREDENTIALS_TIMEOUT_MS;
  const limit = deadline(timeoutMs);
  try {
    await raceSignal(options.credentials(), limit.signal);
  } catch (error) {
    if (limit.expired()) {
      throw new Error(
        `No credentials for QUEUE_PROFILE "${profile}" within ${
          timeoutMs / 1000
        } s: its credential_process or SSO login did not respond; check that \`aws configure export-credentials --profile ${profile}\` responds at once, or set both keys`,
      );
    }
    throw new Error(
      `No credentials for QUEUE_PROFILE "${profile}": ${
        errorText(error)
      }: add the profile to the shared AWS config files (~/.aws/credentials, ~/.aws/config) or set both keys`,
    );
  } finally {
    limit.clear();
  }
}
