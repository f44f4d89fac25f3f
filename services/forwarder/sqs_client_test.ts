import assert from "node:assert/strict";
import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createSqsClient } from "./sqs_client.ts";
import { credentialProblems } from "./settings.ts";

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

Deno.test("createSqsClient() calls a legacy or VPC-endpoint queue URL's host without the SDK's warning", async () => {
  for (
    const url of [
      "https://eu-west-1.queue.amazonaws.com/123456789012/q",
      "https://vpce-0a1b2c3d-4e5f6a7b.sqs.eu-west-1.vpce.amazonaws.com/123456789012/q",
    ]
  ) {
    const log = createMemoryLog();
    const called: string[] = [];
    const client = createSqsClient(
      {
        QUEUE_REGION: "eu-west-1",
        QUEUE_URL: url,
        QUEUE_ACCESS_KEY_ID: "a",
        QUEUE_SECRET_ACCESS_KEY: "b",
      },
      log,
      (target) => {
        called.push(String(target));
        return Promise.resolve({
          status: 200,
          statusText: "OK",
          headers: [["content-type", "application/x-amz-json-1.0"]],
          body: new TextEncoder().encode("{}"),
        });
      },
    );
    try {
      for (let i = 0; i < 2; i++) {
        await client.send(new ReceiveMessageCommand({ QueueUrl: url }));
      }
      assert.deepEqual(called, [
        `${new URL(url).origin}/`,
        `${new URL(url).origin}/`,
      ]);
      assert.deepEqual(log.entries, []);
    } finally {
      client.destroy();
    }
  }
});

Deno.test("createSqsClient() reads a profile from the files named in its settings, not only the process environment", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "aws-files-" });
  try {
    Deno.writeTextFileSync(
      `${dir}/credentials`,
      "[hw]\naws_access_key_id = AKIDFROMFILE\naws_secret_access_key = s\n",
    );
    Deno.writeTextFileSync(`${dir}/config`, "");
    const client = createSqsClient({
      QUEUE_REGION: "eu-west-1",
      QUEUE_URL: "https://sqs.eu-west-1.amazonaws.com/123456789012/q",
      AWS_SHARED_CREDENTIALS_FILE: `${dir}/credentials`,
      AWS_CONFIG_FILE: `${dir}/config`,
      AWS_PROFILE: "hw", // as from .env: QUEUE_PROFILE unset
    }, createMemoryLog());
    try {
      const credentials = await client.config.credentials();
      assert.equal(credentials.accessKeyId, "AKIDFROMFILE");
    } finally {
      client.destroy();
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
