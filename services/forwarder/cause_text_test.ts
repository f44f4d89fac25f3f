import assert from "node:assert/strict";
import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { causeText } from "./cause_text.ts";
import { createSqsClient } from "./sqs_client.ts";

/** An error shaped as the AWS SDK throws it when a reply is not SQS's. */
function unparsedReply(fields: Record<string, unknown>): Error {
  const error = new SyntaxError(
    `Unexpected token '<', "<html><bod"... is not valid JSON\n  Deserialization error: to see the raw response, inspect the hidden field {error}.$response on this object.`,
  );
  return Object.assign(error, fields);
}

Deno.test("causeText()", async (t) => {
  await t.step("drops the final period of an error message", () => {
    assert.equal(
      causeText(new Error("The specified queue does not exist.")),
      "The specified queue does not exist",
    );
    assert.equal(causeText(new Error("refused")), "refused");
    assert.equal(causeText("plain"), "plain");
  });

  await t.step(
    "tells the HTTP status of a reply the SDK could not parse",
    () => {
      assert.equal(
        causeText(unparsedReply({
          $metadata: { httpStatusCode: 502 },
          $response: {
            statusCode: 502,
            headers: { "content-type": "text/html" },
          },
        })),
        "HTTP 502 Bad Gateway (text/html) that is not an SQS reply: a proxy in the way, or QUEUE_URL or QUEUE_ENDPOINT_URL not an SQS server",
      );
      assert.equal(
        causeText(unparsedReply({ $metadata: { httpStatusCode: 200 } })),
        "HTTP 200 OK that is not an SQS reply: a proxy in the way, or QUEUE_URL or QUEUE_ENDPOINT_URL not an SQS server",
      );
    },
  );

  await t.step("drops the SDK's advice when it knows no status", () => {
    assert.equal(
      causeText(unparsedReply({})),
      `Unexpected token '<', "<html><bod"... is not valid JSON`,
    );
  });
});

Deno.test("causeText() tells the status of an HTML page responding to a receive, on the real SDK", async () => {
  const client = createSqsClient(
    {
      QUEUE_REGION: "us-east-1",
      QUEUE_URL: "http://127.0.0.1:9/000000000000/q",
      QUEUE_ACCESS_KEY_ID: "a",
      QUEUE_SECRET_ACCESS_KEY: "b",
    },
    createMemoryLog(),
    () =>
      Promise.resolve({
        status: 502,
        statusText: "Bad Gateway",
        headers: [["content-type", "text/html"]],
        body: new TextEncoder().encode("<html><h1>502 Bad Gateway</h1></html>"),
      }),
  );
  try {
    const error = await client.send(
      new ReceiveMessageCommand({
        QueueUrl: "http://127.0.0.1:9/000000000000/q",
      }),
    ).then(() => undefined, (error: unknown) => error);
    assert.equal(
      causeText(error),
      "HTTP 502 Bad Gateway (text/html) that is not an SQS reply: a proxy in the way, or QUEUE_URL or QUEUE_ENDPOINT_URL not an SQS server",
    );
  } finally {
    client.destroy();
  }
});
