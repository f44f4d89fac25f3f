/**
 * The `forwarder` role: reads messages from an SQS queue and posts each body to an
 * HTTP endpoint (docs/forwarder.md).
 *
 * Layout: a role's folder imports `lib/`, `drivers/` and itself, never another role
 * (`tests/layout_test.ts` checks it).
 *
 * @module
 */
import { defineRole, type RoleDescriptor } from "../../lib/role.ts";
import { forwarderSeries } from "./metrics.ts";
import {
  credentialProblems,
  forwarderSettings,
  queueRegionProblems,
  signingSecretProblems,
} from "./settings.ts";

const CREDENTIALS = [
  "QUEUE_ACCESS_KEY_ID",
  "QUEUE_SECRET_ACCESS_KEY",
  "QUEUE_PROFILE",
] as const;

/** The `forwarder` role descriptor. */
export const forwarderRole: RoleDescriptor = defineRole({
  name: "forwarder",
  summary: "Forwards SQS queue messages to an HTTP endpoint (sqs2http)",
  settings: forwarderSettings,
  // Rules across variables, reported with the others (unless one of their
  // variables is already reported as malformed): both keys or a profile; the region
  // an AWS queue URL names is QUEUE_REGION; one signing secret, not two.
  check: (settings, failed) => [
    ...(CREDENTIALS.some((name) => failed.has(name))
      ? []
      : credentialProblems(settings)),
    ...queueRegionProblems(settings),
    ...signingSecretProblems(settings),
  ],
  series: forwarderSeries,
  // Loaded on start only: the AWS SDK weighs tens of MB that other roles do not need.
  start: async (settings, { log, env, metrics }) => {
    const { startForwarder } = await import("./start_forwarder.ts");
    return await startForwarder(settings, log, env, metrics);
  },
});
