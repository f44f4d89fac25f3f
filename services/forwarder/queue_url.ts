/**
 * What a queue URL says about where the queue lives: the region its AWS host names,
 * and the endpoint the SQS client must be given for it. No SDK here: the role's
 * settings check reads it before the SDK is loaded.
 *
 * @module
 */

/** An AWS host suffix: the commercial partition, or China's. */
const AWS = String.raw`\.amazonaws\.com(?:\.cn)?`;

/**
 * AWS queue hosts that name their region: regional (`sqs.<region>.amazonaws.com`,
 * FIPS `sqs-fips.<region>...`, dual-stack `sqs.<region>.api.aws`), legacy
 * (`<region>.queue.amazonaws.com`) and VPC endpoints
 * (`vpce-....sqs.<region>.vpce.amazonaws.com`).
 */
const REGION_HOSTS = [
  new RegExp(String.raw`^sqs(?:-fips)?\.([a-z0-9-]+)(?:${AWS}|\.api\.aws)$`),
  new RegExp(String.raw`^([a-z0-9-]+)\.queue${AWS}$`),
  new RegExp(String.raw`\.sqs\.([a-z0-9-]+)\.vpce${AWS}$`),
];

/**
 * Returns the region an AWS queue URL's host names, or `undefined` when it names none
 * (another SQS-compatible server, or the legacy `queue.amazonaws.com`).
 *
 * @example
 * ```ts
 * queueUrlRegion("https://eu-west-1.queue.amazonaws.com/123/q"); // "eu-west-1"
 * queueUrlRegion("http://127.0.0.1:4566/000000000000/q"); // undefined
 * ```
 */
export function queueUrlRegion(queueUrl: string): string | undefined {
  const host = new URL(queueUrl).hostname;
  for (const pattern of REGION_HOSTS) {
    const region = pattern.exec(host)?.[1];
    if (region !== undefined) return region;
  }
  return undefined;
}

/**
 * Whether `url` is the endpoint the SDK resolves by itself for `region`
 * (`https://sqs.<region>.amazonaws.com`, `.com.cn` in China's regions).
 */
function isSdkEndpoint(url: URL, region: string): boolean {
  const suffix = region.startsWith("cn-")
    ? ".amazonaws.com.cn"
    : ".amazonaws.com";
  return url.protocol === "https:" && url.port === "" &&
    url.hostname === `sqs.${region}${suffix}`;
}

/**
 * Returns the endpoint the SQS client talks to: `QUEUE_ENDPOINT_URL` when set;
 * `undefined` for the regional AWS endpoint the SDK resolves itself for `region`;
 * otherwise the queue URL's origin (a legacy or VPC-endpoint AWS URL, or another
 * SQS-compatible server), with a `*.localhost` host written as `localhost`
 * (RFC 6761) so it resolves everywhere. Given the origin, the SDK does not warn on
 * every call that the queue URL differs from the endpoint it resolved.
 *
 * @example
 * ```ts
 * queueEndpoint("https://sqs.eu-west-1.amazonaws.com/123/q", "eu-west-1"); // undefined
 * queueEndpoint("https://eu-west-1.queue.amazonaws.com/123/q", "eu-west-1"); // "https://eu-west-1.queue.amazonaws.com"
 * queueEndpoint("http://sqs.us-east-1.localhost:4566/000000000000/q", "us-east-1"); // "http://localhost:4566"
 * ```
 */
export function queueEndpoint(
  queueUrl: string,
  region: string,
  endpointUrl?: string,
): string | undefined {
  if (endpointUrl !== undefined) return endpointUrl;
  const url = new URL(queueUrl);
  if (isSdkEndpoint(url, region)) return undefined;
  if (url.hostname.endsWith(".localhost")) url.hostname = "localhost";
  return url.origin;
}
