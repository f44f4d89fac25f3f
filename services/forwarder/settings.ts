/**
 * Every environment variable the `forwarder` role reads, and the two rules that span
 * several of them: two keys or a profile, and a queue URL's region matching
 * QUEUE_REGION.
 *
 * @module
 */
import {
  optional,
  refine,
  type Setting,
  type SettingsOf,
} from "../../lib/settings.ts";
import {
  choice,
  durationMs,
  host,
  integer,
  port,
  secret,
  text,
  url,
} from "../../lib/setting_kinds.ts";
import { outboundProxySettings } from "../../lib/outbound_proxy_settings.ts";
import { MAX_VISIBILITY_MS } from "./backoff_visibility.ts";
import { queueUrlRegion } from "./queue_url.ts";
import { signingSecret, signingSecretFile } from "./signing_secret.ts";
import { statusList } from "./status_list.ts";

/** A secret that must be usable as an HTTP header value. */
function latin1HeaderSecret(description: string): Setting<string> {
  return refine(
    secret({ description }),
    "a value usable in an HTTP header: no control or non-Latin-1 characters",
    (value) => /^[\t\x20-\x7e\x80-\xff]*$/.test(value),
  );
}

/**
 * A duration of at most 12 hours, the longest visibility timeout of SQS; a value out
 * of range or malformed is reported with this range, not the timers' one.
 */
function upToTwelveHours(
  options: Parameters<typeof durationMs>[0],
): Setting<number> {
  const duration = durationMs(options);
  const expected = `expected a duration from ${
    options.min ?? 0
  } ms to 12 h (${MAX_VISIBILITY_MS} ms), the longest visibility timeout of SQS: a number of milliseconds or a number with ms, s, m or h`;
  return {
    ...duration,
    read(raw) {
      // Unset: the default, or the missing value's own problem.
      if (raw === undefined) return duration.read(raw);
      let value: number;
      try {
        value = duration.read(raw);
      } catch {
        throw new Error(expected);
      }
      if (value > MAX_VISIBILITY_MS) throw new Error(expected);
      return value;
    },
  };
}

/** The forwarder's settings schema, keyed by environment variable. */
export const forwarderSettings = {
  QUEUE_ACCESS_KEY_ID: optional(
    text({
      description: "Access key id of the queue",
      requirement: "required unless QUEUE_PROFILE is set",
    }),
  ),
  QUEUE_SECRET_ACCESS_KEY: optional(
    secret({
      description: "Secret access key of the queue",
      requirement: "required unless QUEUE_PROFILE is set",
    }),
  ),
  QUEUE_PROFILE: optional(
    text({
      description:
        "Named profile of the shared AWS config files, instead of the two keys",
    }),
  ),
  QUEUE_REGION: refine(
    text({ description: "Region of the queue, e.g. eu-west-1" }),
    "a region name such as eu-west-1 (letters, digits and inner hyphens)",
    (value) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(value),
  ),
  QUEUE_URL: url({ description: "URL of the queue to read" }),
  QUEUE_ENDPOINT_URL: optional(
    url({
      description:
        "Endpoint of an SQS-compatible server (default: derived from QUEUE_URL)",
    }),
  ),
  HTTP_ENDPOINT: url({ description: "URL that receives each message body" }),
  AUTH_BEARER_TOKEN: latin1HeaderSecret(
    "Authorization header value of the POST, sent exactly as given",
  ),
  QUEUE_MAX_NUMBER_OF_MESSAGES: integer({
    description: "Messages asked for per receive call (1 to 10)",
    default: 10,
    min: 1,
    max: 10,
  }),
  QUEUE_WAIT_TIME_SECONDS: integer({
    description: "Long-polling wait of a receive call, in seconds (0 to 20)",
    default: 20,
    min: 0,
    max: 20,
  }),
  QUEUE_VISIBILITY_TIMEOUT: optional(integer({
    description:
      "Visibility timeout asked for on receive, in seconds (1 to 43200; default: the queue's)",
    min: 1,
    max: 43_200,
  })),
  HTTP_TIMEOUT_MS: durationMs({
    description:
      "Time-out of one POST (at least 1 ms); a time-out leaves the message queued",
    default: 30_000,
    min: 1,
  }),
  FORWARD_CONCURRENCY: integer({
    description: "Most POSTs in flight at once (1 to 1000)",
    default: 10,
    min: 1,
    max: 1000,
  }),
  FORWARDER_RECEIVERS: integer({
    description: "Receive calls in flight at once (1 to 100)",
    default: 1,
    min: 1,
    max: 100,
  }),
  FORWARD_RETRY_STATUSES: statusList({
    description:
      "HTTP statuses that leave the message queued for redelivery, e.g. 429,500-599",
  }),
  FORWARD_BODY: choice(["json", "raw"] as const, {
    description:
      "json posts the Body as a JSON string; raw posts the Body unchanged",
    default: "json",
  }),
  FORWARD_SIGNING_SECRET: optional(signingSecret({
    description:
      "Standard Webhooks secret (whsec_ and base64): signs each post with webhook-id, webhook-timestamp and webhook-signature (default: unsigned)",
  })),
  FORWARD_SIGNING_SECRET_FILE: optional(signingSecretFile({
    description:
      "File holding FORWARD_SIGNING_SECRET (container secrets), instead of the variable",
  })),
  FORWARD_METADATA: choice(["none", "sqsd"] as const, {
    description:
      "sqsd adds the Elastic Beanstalk worker daemon's X-Aws-Sqsd-* headers to each post",
    default: "none",
  }),
  FORWARD_BACKOFF_BASE_MS: optional(upToTwelveHours({
    description:
      "Backoff of a message left for redelivery: hidden for this × 2^(receive count − 1), ±10% (1 to 43200000 ms; default: off, the visibility timeout)",
    min: 1,
  })),
  FORWARD_BACKOFF_MAX_MS: upToTwelveHours({
    description:
      "Longest backoff or Retry-After before a redelivery (1 to 43200000 ms, 12 h)",
    default: 3_600_000,
    min: 1,
  }),
  FORWARDER_METRICS_HOST: host({
    description:
      "Address of the endpoint of FORWARDER_METRICS_PORT (the older form of METRICS_HOST)",
    default: "0.0.0.0",
  }),
  FORWARDER_METRICS_PORT: optional(port({
    description:
      "The older name of METRICS_PORT, still read: a metrics endpoint of the forwarder's own (GET /metrics, /readyz, /healthz) on this port (default: none)",
  })),
  // The queue calls and the posts go out through the outbound proxy.
  ...outboundProxySettings,
};

/** The parsed forwarder settings. */
export type ForwarderSettings = SettingsOf<typeof forwarderSettings>;

/** The credential settings, as parsed. */
export interface CredentialSettings {
  readonly QUEUE_ACCESS_KEY_ID?: string;
  readonly QUEUE_SECRET_ACCESS_KEY?: string;
  readonly QUEUE_PROFILE?: string;
}

/**
 * Returns the problems of the credential settings: both keys, or a profile, are needed.
 *
 * @example
 * ```ts
 * credentialProblems({ QUEUE_PROFILE: "prod" }); // []
 * ```
 */
export function credentialProblems(settings: CredentialSettings): string[] {
  const id = settings.QUEUE_ACCESS_KEY_ID !== undefined;
  const key = settings.QUEUE_SECRET_ACCESS_KEY !== undefined;
  if (id && key) return [];
  if (id) {
    return [
      "Missing QUEUE_SECRET_ACCESS_KEY: it goes with QUEUE_ACCESS_KEY_ID (or use QUEUE_PROFILE alone)",
    ];
  }
  if (key) {
    return [
      "Missing QUEUE_ACCESS_KEY_ID: it goes with QUEUE_SECRET_ACCESS_KEY (or use QUEUE_PROFILE alone)",
    ];
  }
  if (settings.QUEUE_PROFILE !== undefined) return [];
  return [
    "Missing QUEUE_ACCESS_KEY_ID: access key id of the queue (or set QUEUE_PROFILE instead of both keys)",
    "Missing QUEUE_SECRET_ACCESS_KEY: secret access key of the queue (or set QUEUE_PROFILE instead of both keys)",
  ];
}

/**
 * Returns the problem of a signing secret given twice: in the variable and in a file.
 *
 * @example
 * ```ts
 * signingSecretProblems({}); // []
 * ```
 */
export function signingSecretProblems(
  settings: {
    readonly FORWARD_SIGNING_SECRET?: unknown;
    readonly FORWARD_SIGNING_SECRET_FILE?: unknown;
  },
): string[] {
  if (
    settings.FORWARD_SIGNING_SECRET === undefined ||
    settings.FORWARD_SIGNING_SECRET_FILE === undefined
  ) return [];
  return [
    "FORWARD_SIGNING_SECRET and FORWARD_SIGNING_SECRET_FILE are both set: keep one of them",
  ];
}

/** The settings {@linkcode queueRegionProblems} compares. */
export interface QueueRegionSettings {
  readonly QUEUE_URL?: string;
  readonly QUEUE_REGION?: string;
  readonly QUEUE_ENDPOINT_URL?: string;
}

/**
 * Returns the problem of an AWS queue URL whose host names another region than
 * QUEUE_REGION (the calls would be signed for the wrong region and refused). With
 * QUEUE_ENDPOINT_URL set, the calls go there and the URL's host plays no part (a local
 * ElasticMQ or LocalStack reached with the production queue URL): nothing is checked.
 * A FIPS pseudo-region (`us-east-1-fips`, `fips-us-east-1`) names its region.
 *
 * @example
 * ```ts
 * queueRegionProblems({
 *   QUEUE_URL: "https://sqs.eu-west-1.amazonaws.com/123/q",
 *   QUEUE_REGION: "eu-west-1",
 * }); // []
 * ```
 */
export function queueRegionProblems(settings: QueueRegionSettings): string[] {
  const { QUEUE_URL: url, QUEUE_REGION: region } = settings;
  if (url === undefined || region === undefined) return [];
  if (settings.QUEUE_ENDPOINT_URL !== undefined) return [];
  const named = queueUrlRegion(url);
  const plain = region.replace(/^fips-|-fips$/, "");
  if (named === undefined || named === plain) return [];
  return [
    `QUEUE_REGION "${region}" does not match QUEUE_URL "${url}", whose host names region ${named}: set QUEUE_REGION=${named}, or the URL of the queue in ${region}`,
  ];
}
