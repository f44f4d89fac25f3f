import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/log.ts";
import { createSqsClient, queueEndpoint } from "./sqs_client.ts";
import { credentialProblems } from "./settings.ts";

Deno.test("queueEndpoint()", async (t) => {
  await t.step("prefers QUEUE_ENDPOINT_URL", () => {
    assert.equal(
      queueEndpoint("https://sqs.eu-west-1.amazonaws.com/1/q", "http://h:1"),
      "http://h:1",
    );
  });
  await t.step("leaves AWS queue URLs to the SDK", () => {
    assert.equal(
      queueEndpoint("https://sqs.eu-west-1.amazonaws.com/123/q"),
      undefined,
    );
  });
  await t.step("uses the origin of another server's queue URL", () => {
    assert.equal(
      queueEndpoint("http://127.0.0.1:4566/000000000000/q"),
      "http://127.0.0.1:4566",
    );
    assert.equal(
      queueEndpoint("http://sqs.us-east-1.localhost:4566/000000000000/q"),
      "http://localhost:4566",
    );
  });
});

Deno.test("credentialProblems()", async (t) => {
  await t.step("accepts both keys or a profile", () => {
    assert.deepEqual(
      credentialProblems({
        QUEUE_ACCESS_KEY_ID: "a",
        QUEUE_SECRET_ACCESS_KEY: "b",
      }),
      [],
    );
    assert.deepEqual(credentialProblems({ QUEUE_PROFILE: "prod" }), []);
  });
  await t.step("names the missing half of a key pair", () => {
    assert.match(
      credentialProblems({ QUEUE_ACCESS_KEY_ID: "a", QUEUE_PROFILE: "p" })[0]!,
      /^Missing QUEUE_SECRET_ACCESS_KEY/,
    );
    assert.match(
      credentialProblems({ QUEUE_SECRET_ACCESS_KEY: "b" })[0]!,
      /^Missing QUEUE_ACCESS_KEY_ID/,
    );
  });
  await t.step("names both keys and the profile when nothing is set", () => {
    const problems = credentialProblems({});
    assert.equal(problems.length, 2);
    assert.match(problems[0]!, /^Missing QUEUE_ACCESS_KEY_ID: .*QUEUE_PROFILE/);
    assert.match(
      problems[1]!,
      /^Missing QUEUE_SECRET_ACCESS_KEY: .*QUEUE_PROFILE/,
    );
  });
});

Deno.test("createSqsClient() gives the SDK a logger from WARNING up only", () => {
  const log = createMemoryLog();
  const client = createSqsClient({
    QUEUE_REGION: "us-east-1",
    QUEUE_URL: "http://127.0.0.1:9324/000000000000/q",
    QUEUE_ACCESS_KEY_ID: "a",
    QUEUE_SECRET_ACCESS_KEY: "b",
  }, log);
  try {
    const logger = client.config.logger;
    // No `info` at all: the SDK then skips building its per-call info record.
    assert.equal(logger.info, undefined);
    logger.debug("ignored");
    logger.warn("Slow call", { ms: 900 });
    logger.error(new Error("Broken"));
    assert.deepEqual(log.entries, [
      { level: "WARNING", message: 'Slow call {"ms":900}' },
      { level: "ERROR", message: "Broken" },
    ]);
  } finally {
    client.destroy();
  }
});

Deno.test("createSqsClient() says a profile beside both keys is ignored", () => {
  const settings = {
    QUEUE_REGION: "us-east-1",
    QUEUE_URL: "http://127.0.0.1:9324/000000000000/q",
    QUEUE_ACCESS_KEY_ID: "a",
    QUEUE_SECRET_ACCESS_KEY: "b",
  };
  const quiet = createMemoryLog();
  createSqsClient(settings, quiet).destroy();
  assert.deepEqual(quiet.entries, []);
  const log = createMemoryLog();
  createSqsClient({ ...settings, QUEUE_PROFILE: "prod" }, log).destroy();
  assert.deepEqual(log.at("WARNING"), [
    'QUEUE_PROFILE "prod" is ignored: QUEUE_ACCESS_KEY_ID and QUEUE_SECRET_ACCESS_KEY are set (unset them to use the profile)',
  ]);
});
