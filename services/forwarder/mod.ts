/**
 * The `forwarder` role: reads messages from an SQS queue and posts each body to an
 * HTTP endpoint (spec 1, with the additions of DECISIONS.md).
 *
 * @module
 */
import { defineRole, type RoleDescriptor } from "../../lib/role.ts";
import { parseSettings, SettingsError } from "../../lib/settings.ts";
import { credentialProblems, forwarderSettings } from "./settings.ts";

const role = defineRole({
  name: "forwarder",
  summary: "Forwards SQS queue messages to an HTTP endpoint (sqs2http)",
  settings: forwarderSettings,
  // Loaded on start only: the AWS SDK weighs tens of MB that other roles do not need.
  start: async (settings, { log }) => {
    const { startForwarder } = await import("./start_forwarder.ts");
    return await startForwarder(settings, log);
  },
});

/** The `forwarder` role descriptor. */
export const forwarderRole: RoleDescriptor = {
  ...role,
  prepare(context) {
    // Both keys or a profile: a rule across variables, checked with the others.
    const credentials = credentialProblems(
      parseSettings({
        QUEUE_ACCESS_KEY_ID: forwarderSettings.QUEUE_ACCESS_KEY_ID,
        QUEUE_SECRET_ACCESS_KEY: forwarderSettings.QUEUE_SECRET_ACCESS_KEY,
        QUEUE_PROFILE: forwarderSettings.QUEUE_PROFILE,
      }, context.env),
    );
    let start;
    try {
      start = role.prepare(context);
    } catch (error) {
      if (error instanceof SettingsError && credentials.length > 0) {
        throw new SettingsError([...error.problems, ...credentials]);
      }
      throw error;
    }
    if (credentials.length > 0) throw new SettingsError(credentials);
    return start;
  },
};
