import assert from "node:assert/strict";
import { helpText } from "../../program/help.ts";
import { forwarderRole } from "./mod.ts";
import { SettingsError } from "../../lib/settings.ts";
import {
  forwarderSettings,
  queueRegionProblems,
  signingSecretProblems,
} from "./settings.ts";

/** Every bounded forwarder setting, with the range it accepts. */
const RANGES: Record<string, [number, number | undefined]> = {
  QUEUE_MAX_NUMBER_OF_MESSAGES: [1, 10],
  QUEUE_WAIT_TIME_SECONDS: [0, 20],
  QUEUE_VISIBILITY_TIMEOUT: [1, 43_200],
  HTTP_TIMEOUT_MS: [1, undefined],
  FORWARD_CONCURRENCY: [1, 1000],
  FORWARDER_RECEIVERS: [1, 100],
  FORWARD_BACKOFF_BASE_MS: [1, 43_200_000],
  FORWARD_BACKOFF_MAX_MS: [1, 43_200_000],
};

Deno.test("forwarderSettings", async (t) => {
  await t.step("--help shows the range of every bounded setting", () => {
    const lines = helpText([forwarderRole], {}).split("\n");
    for (const [name, [min, max]] of Object.entries(RANGES)) {
      const line = lines.find((l) => l.trimStart().startsWith(`${name} `));
      const range = max === undefined
        ? `(at least ${min}`
        : `(${min} to ${max}`;
      assert.ok(line?.includes(range), `${name} shows ${range}: ${line}`);
    }
  });

  await t.step("each setting accepts exactly the range it shows", () => {
    for (const [name, [min, max]] of Object.entries(RANGES)) {
      const setting = forwarderSettings[name as keyof typeof forwarderSettings];
      assert.doesNotThrow(() => setting.read(String(min)), name);
      assert.throws(() => setting.read(String(min - 1)), name);
      if (max === undefined) continue;
      assert.doesNotThrow(() => setting.read(String(max)), name);
      assert.throws(() => setting.read(String(max + 1)), name);
    }
  });
});

Deno.test("queueRegionProblems()", async (t) => {
  await t.step("accepts a queue URL naming QUEUE_REGION, or no region", () => {
    for (
      const url of [
        "https://sqs.eu-west-1.amazonaws.com/123/q",
        "https://eu-west-1.queue.amazonaws.com/123/q",
        "https://vpce-0a1b.sqs.eu-west-1.vpce.amazonaws.com/123/q",
        "https://queue.amazonaws.com/123/q",
        "http://127.0.0.1:4566/000000000000/q",
      ]
    ) {
      assert.deepEqual(
        queueRegionProblems({ QUEUE_URL: url, QUEUE_REGION: "eu-west-1" }),
        [],
        url,
      );
    }
  });

  await t.step("names both settings when the URL names another region", () => {
    for (
      const url of [
        "https://sqs.eu-west-1.amazonaws.com/123/q",
        "https://eu-west-1.queue.amazonaws.com/123/q",
        "https://vpce-0a1b.sqs.eu-west-1.vpce.amazonaws.com/123/q",
      ]
    ) {
      assert.deepEqual(
        queueRegionProblems({ QUEUE_URL: url, QUEUE_REGION: "us-east-1" }),
        [
          `QUEUE_REGION "us-east-1" does not match QUEUE_URL "${url}", whose host names region eu-west-1: set QUEUE_REGION=eu-west-1, or the URL of the queue in us-east-1`,
        ],
      );
    }
  });

  await t.step("lets QUEUE_ENDPOINT_URL decide where the calls go", () => {
    // A local ElasticMQ or LocalStack reached with the production queue URL.
    assert.deepEqual(
      queueRegionProblems({
        QUEUE_URL: "https://sqs.eu-west-1.amazonaws.com/000000000000/q",
        QUEUE_REGION: "elasticmq",
        QUEUE_ENDPOINT_URL: "http://localhost:9324",
      }),
      [],
    );
  });

  await t.step("reads a FIPS pseudo-region as its region", () => {
    for (const region of ["us-east-1-fips", "fips-us-east-1"]) {
      assert.deepEqual(
        queueRegionProblems({
          QUEUE_URL: "https://sqs-fips.us-east-1.amazonaws.com/123/q",
          QUEUE_REGION: region,
        }),
        [],
        region,
      );
    }
    assert.equal(
      queueRegionProblems({
        QUEUE_URL: "https://sqs-fips.us-east-1.amazonaws.com/123/q",
        QUEUE_REGION: "us-west-2-fips",
      }).length,
      1,
    );
  });

  await t.step("says nothing when either setting is missing", () => {
    assert.deepEqual(queueRegionProblems({ QUEUE_REGION: "us-east-1" }), []);
    assert.deepEqual(
      queueRegionProblems({
        QUEUE_URL: "https://sqs.eu-west-1.amazonaws.com/123/q",
      }),
      [],
    );
  });

  await t.step("stops the role's start-up with the other problems", () => {
    assert.throws(
      () =>
        forwarderRole.prepare({
          env: {
            QUEUE_URL: "https://eu-west-1.queue.amazonaws.com/123/q",
            QUEUE_REGION: "us-east-1",
            QUEUE_PROFILE: "prod",
            HTTP_ENDPOINT: "http://127.0.0.1:1/",
            AUTH_BEARER_TOKEN: "Bearer x",
            QUEUE_MAX_NUMBER_OF_MESSAGES: "11",
          },
          args: [],
          flags: new Set(),
        }),
      (error) => {
        assert.ok(error instanceof SettingsError);
        assert.equal(error.problems.length, 2);
        assert.match(
          error.problems[0]!,
          /^Invalid QUEUE_MAX_NUMBER_OF_MESSAGES/,
        );
        assert.match(
          error.problems[1]!,
          /^QUEUE_REGION "us-east-1" does not match QUEUE_URL /,
        );
        return true;
      },
    );
  });
});

Deno.test("forwarderSettings of the webhook options", async (t) => {
  const env = {
    QUEUE_URL: "http://127.0.0.1:4566/000000000000/q",
    QUEUE_REGION: "us-east-1",
    QUEUE_ACCESS_KEY_ID: "a",
    QUEUE_SECRET_ACCESS_KEY: "b",
    HTTP_ENDPOINT: "http://127.0.0.1:1/",
    AUTH_BEARER_TOKEN: "Bearer t",
  };
  const start = (extra: Record<string, string>) =>
    forwarderRole.prepare({
      env: { ...env, ...extra },
      args: [],
      flags: new Set(),
    });

  await t.step("leaves every option off by default", () => {
    const { FORWARD_METADATA, FORWARD_BACKOFF_MAX_MS } = forwarderSettings;
    assert.equal(FORWARD_METADATA.read(undefined), "none");
    assert.equal(FORWARD_BACKOFF_MAX_MS.read(undefined), 3_600_000);
    assert.equal(
      forwarderSettings.FORWARD_BACKOFF_BASE_MS.read(undefined),
      undefined,
    );
    assert.equal(
      forwarderSettings.FORWARD_SIGNING_SECRET.read(undefined),
      undefined,
    );
    assert.doesNotThrow(() => start({}));
  });

  await t.step("reads durations with units, up to 12 h", () => {
    const { FORWARD_BACKOFF_BASE_MS, FORWARD_BACKOFF_MAX_MS } =
      forwarderSettings;
    assert.equal(FORWARD_BACKOFF_BASE_MS.read("1s"), 1000);
    assert.equal(FORWARD_BACKOFF_MAX_MS.read("12h"), 43_200_000);
    assert.throws(() => FORWARD_BACKOFF_MAX_MS.read("13h"), /12 h/);
    assert.throws(() => FORWARD_BACKOFF_MAX_MS.read("0"));
  });

  await t.step("names the 12 h range whatever is wrong with a backoff", () => {
    const range =
      /: expected a duration from 1 ms to 12 h \(43200000 ms\), the longest visibility timeout of SQS: a number of milliseconds or a number with ms, s, m or h$/;
    for (const name of ["FORWARD_BACKOFF_BASE_MS", "FORWARD_BACKOFF_MAX_MS"]) {
      const setting = forwarderSettings[name as "FORWARD_BACKOFF_MAX_MS"];
      for (const raw of ["0", "-5", "soon", "13h", "99999999999"]) {
        assert.throws(() => setting.read(raw), range, `${name}=${raw}`);
      }
    }
    assert.throws(
      () => start({ FORWARD_BACKOFF_BASE_MS: "0" }),
      (error: SettingsError) =>
        error.problems.includes(
          'Invalid FORWARD_BACKOFF_BASE_MS "0": expected a duration from 1 ms to 12 h (43200000 ms), the longest visibility timeout of SQS: a number of milliseconds or a number with ms, s, m or h',
        ),
    );
  });

  await t.step(
    "reports a malformed secret by name only, and one given twice",
    () => {
      assert.throws(
        () => start({ FORWARD_SIGNING_SECRET: "hunter2" }),
        (error: SettingsError) =>
          error.problems.some((p) =>
            p.startsWith("Invalid FORWARD_SIGNING_SECRET: ")
          ) &&
          !error.message.includes("hunter2"),
      );
      assert.deepEqual(
        signingSecretProblems({ FORWARD_SIGNING_SECRET: 1 }),
        [],
      );
      assert.match(
        signingSecretProblems({
          FORWARD_SIGNING_SECRET: 1,
          FORWARD_SIGNING_SECRET_FILE: 2,
        })[0]!,
        /both set: keep one of them/,
      );
    },
  );
});
