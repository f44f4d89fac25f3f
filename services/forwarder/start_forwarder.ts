/**
 * Starts the forwarder: the queue client, the receive/post/delete loop and the
 * optional metrics endpoint. Loaded only when the role starts (see `mod.ts`), so other
 * roles never load the AWS SDK.
 *
 * @module
 */
import { type RunningServer, serveApp } from "../../lib/serve.ts";
import {
  createHttp1Client,
  IDEMPOTENT_METHODS,
} from "../../lib/http1/client.ts";
import { exchangeOver } from "../../lib/http1/exchange.ts";
import { createUpstream } from "../../lib/http1/upstream.ts";
import type { Log } from "../../lib/log.ts";
import {
  outboundProxyOf,
  outboundProxyText,
} from "../../lib/outbound_proxy_settings.ts";
import type { RunningRole } from "../../lib/role.ts";
import type { Env } from "../../lib/settings.ts";
import { createBackoffVisibility } from "./backoff_visibility.ts";
import { createForwarder } from "./forwarder.ts";
import { createMessageHeaders } from "./message_headers.ts";
import { createMetrics } from "./metrics.ts";
import { createMetricsApp } from "../../lib/metrics/metrics_app.ts";
import {
  createRegistry,
  type MetricsRegistry,
} from "../../lib/metrics/registry.ts";
import { createPoster } from "./poster.ts";
import { checkProfileCredentials } from "./profile_credentials.ts";
import type { ForwarderSettings } from "./settings.ts";
import { createSqsClient } from "./sqs_client.ts";
import { createSigner } from "./signing.ts";
import { createSqsQueue } from "./sqs_queue.ts";
import { createSqsdHeaders, SQSD_SYSTEM_ATTRIBUTES } from "./sqsd_headers.ts";

/**
 * Longest wait at stop for the posts in hand, whatever HTTP_TIMEOUT_MS is (docs/forwarder.md
 * promises it); the wait ends as soon as they do.
 */
const SHUTDOWN_TIMEOUT_MS = 25_000;

/**
 * Starts the forwarder loop, and its own metrics endpoint when
 * `FORWARDER_METRICS_PORT` (the older name of the process' `METRICS_PORT`) is set:
 * it serves `registry` (the process', or one of its own). Rejects when
 * the profile named by `QUEUE_PROFILE` gives no credentials, or none within 30 s (a
 * retry cannot fix that). `env` (with `.env` merged in) gives the AWS SDK's
 * variables for its shared config files.
 */
export async function startForwarder(
  settings: ForwarderSettings,
  log: Log,
  env: Env = {},
  registry: MetricsRegistry = createRegistry().with({ role: "forwarder" }),
): Promise<RunningRole> {
  log.info("sqs2http start");
  // One keep-alive HTTP/1.1 pool for the queue calls and the posts: it costs less
  // CPU per call than `fetch` (https URLs go to `fetch`, unless proxied).
  // Its POSTs may go out twice (delivery is at least once): see docs/forwarder.md.
  // The queue calls and the posts alike go through the outbound proxy, if any.
  const proxy = outboundProxyOf(settings, env);
  if (proxy) log.info(outboundProxyText(proxy));
  const http = createHttp1Client({
    retryMethods: [...IDEMPOTENT_METHODS, "POST"],
    proxy,
  });
  // The one upstream interface (the pool for http: and for https: through the
  // outbound proxy, fetch for other https:), each response read whole.
  const exchange = exchangeOver(createUpstream({ http1: http }));
  const { AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE, AWS_PROFILE } = env;
  const client = createSqsClient(
    { ...settings, AWS_SHARED_CREDENTIALS_FILE, AWS_CONFIG_FILE, AWS_PROFILE },
    log,
    exchange,
  );
  const closeClients = () => {
    client.destroy();
    http.close();
  };
  if (settings.QUEUE_PROFILE !== undefined) {
    try {
      await checkProfileCredentials({
        profile: settings.QUEUE_PROFILE,
        credentials: () => client.config.credentials(),
      });
    } catch (error) {
      closeClients();
      throw error;
    }
  }
  const metrics = createMetrics(registry);
  const sqsd = settings.FORWARD_METADATA === "sqsd";
  const backoffBase = settings.FORWARD_BACKOFF_BASE_MS;
  // The receive asks for exactly the attributes the options read.
  const systemAttributes = [
    ...new Set([
      ...(sqsd ? SQSD_SYSTEM_ATTRIBUTES : []),
      ...(backoffBase === undefined ? [] : ["ApproximateReceiveCount"]),
    ]),
  ];
  const key = settings.FORWARD_SIGNING_SECRET ??
    settings.FORWARD_SIGNING_SECRET_FILE;
  const forwarder = createForwarder({
    queue: createSqsQueue({
      client,
      queueUrl: settings.QUEUE_URL,
      maxMessages: settings.QUEUE_MAX_NUMBER_OF_MESSAGES,
      waitTimeSeconds: settings.QUEUE_WAIT_TIME_SECONDS,
      systemAttributes,
      messageAttributes: sqsd,
    }),
    headers: createMessageHeaders({
      ...(sqsd
        ? {
          sqsd: createSqsdHeaders({
            queueName: queueName(settings.QUEUE_URL),
            log,
          }),
        }
        : {}),
      ...(key === undefined ? {} : { sign: createSigner(key) }),
    }),
    // A Retry-After is honoured with or without a base.
    retryDelay: createBackoffVisibility({
      baseMs: backoffBase,
      maxMs: settings.FORWARD_BACKOFF_MAX_MS,
    }),
    post: createPoster({
      endpoint: settings.HTTP_ENDPOINT,
      token: settings.AUTH_BEARER_TOKEN,
      timeoutMs: settings.HTTP_TIMEOUT_MS,
      bodyMode: settings.FORWARD_BODY,
      exchange,
    }),
    log,
    metrics,
    settings: {
      receivers: settings.FORWARDER_RECEIVERS,
      concurrency: settings.FORWARD_CONCURRENCY,
      batchSize: settings.QUEUE_MAX_NUMBER_OF_MESSAGES,
      retryStatuses: settings.FORWARD_RETRY_STATUSES,
      visibilityTimeout: settings.QUEUE_VISIBILITY_TIMEOUT,
      shutdownTimeoutMs: SHUTDOWN_TIMEOUT_MS,
      emptyReceivePauseMs: settings.QUEUE_WAIT_TIME_SECONDS === 0 ? 1000 : 0,
    },
  });
  let server: RunningServer | undefined;
  try {
    server = settings.FORWARDER_METRICS_PORT === undefined
      ? undefined
      : serveApp(
        createMetricsApp({ registry, ready: metrics.readiness, log }),
        {
          hostname: settings.FORWARDER_METRICS_HOST,
          port: settings.FORWARDER_METRICS_PORT,
          portSetting: "FORWARDER_METRICS_PORT",
          hostSetting: "FORWARDER_METRICS_HOST",
          log,
          name: "forwarder metrics",
        },
      );
  } catch (error) {
    closeClients();
    throw error;
  }
  const running = forwarder.run();
  return {
    ready: metrics.readiness,
    async stop() {
      await forwarder.stop();
      await running;
      await server?.stop();
      closeClients();
    },
  };
}

/** The queue's name: the last segment of its URL's path. */
function queueName(queueUrl: string): string {
  return new URL(queueUrl).pathname.split("/").filter(Boolean).at(-1) ?? "";
}
