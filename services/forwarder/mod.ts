/**
 * The `forwarder` role: reads messages from an SQS queue and posts each body to an
 * HTTP endpoint (spec 1, with the additions of DECISIONS.md).
 *
 * @module
 */
import { serveApp } from "../../lib/http.ts";
import {
  defineRole,
  type RoleDescriptor,
  type RunningRole,
} from "../../lib/role.ts";
import { parseSettings, SettingsError } from "../../lib/settings.ts";
import { createForwarder } from "./forwarder.ts";
import { createMetrics } from "./metrics.ts";
import { createMetricsApp } from "./metrics_app.ts";
import { createPoster } from "./poster.ts";
import {
  credentialProblems,
  type ForwarderSettings,
  forwarderSettings,
} from "./settings.ts";
import { createSqsClient } from "./sqs_client.ts";
import { createSqsQueue } from "./sqs_queue.ts";
import type { Log } from "../../lib/log.ts";

/** Starts the forwarder loop, and the metrics endpoint when a port is set. */
function startForwarder(
  settings: ForwarderSettings,
  log: Log,
): Promise<RunningRole> {
  log.info("sqs2http start");
  const client = createSqsClient(settings, log);
  const metrics = createMetrics();
  const forwarder = createForwarder({
    queue: createSqsQueue({
      client,
      queueUrl: settings.QUEUE_URL,
      maxMessages: settings.QUEUE_MAX_NUMBER_OF_MESSAGES,
      waitTimeSeconds: settings.QUEUE_WAIT_TIME_SECONDS,
      visibilityTimeout: settings.QUEUE_VISIBILITY_TIMEOUT,
    }),
    post: createPoster({
      endpoint: settings.HTTP_ENDPOINT,
      token: settings.AUTH_BEARER_TOKEN,
      timeoutMs: settings.HTTP_TIMEOUT_MS,
      bodyMode: settings.FORWARD_BODY,
    }),
    log,
    metrics,
    settings: {
      receivers: settings.FORWARDER_RECEIVERS,
      concurrency: settings.FORWARD_CONCURRENCY,
      batchSize: settings.QUEUE_MAX_NUMBER_OF_MESSAGES,
      retryStatuses: settings.FORWARD_RETRY_STATUSES,
      visibilityTimeout: settings.QUEUE_VISIBILITY_TIMEOUT,
      shutdownTimeoutMs: Math.min(settings.HTTP_TIMEOUT_MS + 1000, 25_000),
    },
  });
  const server = settings.FORWARDER_METRICS_PORT === undefined
    ? undefined
    : serveApp(createMetricsApp({ metrics, log }), {
      hostname: settings.FORWARDER_METRICS_HOST,
      port: settings.FORWARDER_METRICS_PORT,
      log,
      name: "forwarder metrics",
    });
  const running = forwarder.run();
  return Promise.resolve({
    async stop() {
      await forwarder.stop();
      await running;
      await server?.stop();
      client.destroy();
    },
  });
}

const role = defineRole({
  name: "forwarder",
  summary: "Forwards SQS queue messages to an HTTP endpoint (sqs2http)",
  settings: forwarderSettings,
  start: (settings, { log }) => startForwarder(settings, log),
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
