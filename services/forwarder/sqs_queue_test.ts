import assert from "node:assert/strict";
import {
  type ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import { startFauxqs } from "../../tests/_test_fauxqs.ts";
import { createSqsQueue } from "./sqs_queue.ts";

/**
 * A stand-in SQS client responding to every receive with `reply`, recording what each
 * asked for (for what fauxqs does not show).
 */
function receivingClient(reply: object) {
  const asked: ReceiveMessageCommand["input"][] = [];
  const client = {
    send(command: ReceiveMessageCommand) {
      asked.push(command.input);
      return Promise.resolve(reply);
    },
  } as unknown as SQSClient;
  return { asked, client };
}

Deno.test("createSqsQueue() tells the message group of each message of a FIFO queue", async () => {
  const fauxqs = await startFauxqs();
  try {
    const url = await fauxqs.createQueue("groups.fifo", { FifoQueue: "true" });
    const sent = await fauxqs.client.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: ["x", "y"].map((body, i) => ({
          Id: String(i),
          MessageBody: body,
          MessageGroupId: `group-${body}`,
          MessageDeduplicationId: body,
        })),
      }),
    );
    assert.deepEqual(sent.Failed ?? [], []);
    const queue = createSqsQueue({
      client: fauxqs.client,
      queueUrl: url,
      maxMessages: 10,
      waitTimeSeconds: 0,
    });
    const received = await queue.receive();
    assert.deepEqual(
      received.map(({ body, groupId }) => ({ body, groupId })),
      [{ body: "x", groupId: "group-x" }, { body: "y", groupId: "group-y" }],
    );
  } finally {
    await fauxqs.stop();
  }
});

Deno.test("createSqsQueue() leaves the group ids of a standard queue aside", async () => {
  // On a standard queue a group id only shares the queue fairly among tenants (fair
  // queues): it is not asked for, and ignored should it come anyway. fauxqs drops the
  // group ids of a standard queue, so a stand-in client responds as SQS would.
  const { asked, client } = receivingClient({
    Messages: [{
      MessageId: "m1",
      Body: "x",
      ReceiptHandle: "r1",
      Attributes: { MessageGroupId: "tenant-1" },
    }],
  });
  const queueOn = (queueUrl: string) =>
    createSqsQueue({ client, queueUrl, maxMessages: 10, waitTimeSeconds: 0 });
  const base = "https://sqs.eu-west-1.amazonaws.com/123456789012";

  const [standard] = await queueOn(`${base}/events`).receive();
  assert.deepEqual(standard, { id: "m1", body: "x", receiptHandle: "r1" });
  assert.equal(asked[0]!.MessageSystemAttributeNames, undefined);
  assert.equal(asked[0]!.AttributeNames, undefined);

  const [fifo] = await queueOn(`${base}/events.fifo`).receive();
  assert.equal(fifo?.groupId, "tenant-1");
  assert.deepEqual(asked[1]!.MessageSystemAttributeNames, ["MessageGroupId"]);
  // Servers that predate MessageSystemAttributeNames know only AttributeNames.
  assert.deepEqual(asked[1]!.AttributeNames, ["MessageGroupId"]);
});

Deno.test("createSqsQueue() tells which visibility extensions the queue refused", async () => {
  const fauxqs = await startFauxqs();
  try {
    const url = await fauxqs.createQueue("extend");
    await fauxqs.send(url, ["kept", "gone"]);
    const queue = createSqsQueue({
      client: fauxqs.client,
      queueUrl: url,
      maxMessages: 10,
      waitTimeSeconds: 0,
    });
    const received = await queue.receive();
    assert.equal(received.length, 2);
    const gone = received.find((message) => message.body === "gone")!;
    assert.deepEqual(await queue.deleteBatch([gone]), []);
    const refused = await queue.extendVisibility(received, 30);
    assert.deepEqual(refused.map(({ message }) => message.body), ["gone"]);
    // The reason goes in the middle of a log line: no final period before the ";".
    assert.match(refused[0]!.reason, /\w$/);
  } finally {
    await fauxqs.stop();
  }
});

Deno.test("createSqsQueue() asks for the visibility timeout given to receive()", async () => {
  const { asked, client } = receivingClient({});
  const queue = createSqsQueue({
    client,
    queueUrl: "https://sqs.eu-west-1.amazonaws.com/123456789012/events",
    maxMessages: 10,
    waitTimeSeconds: 0,
  });
  await queue.receive(undefined, 30);
  await queue.receive();
  assert.deepEqual(asked.map((input) => input.VisibilityTimeout), [
    30,
    undefined,
  ]);
});

Deno.test("createSqsQueue() asks for exactly the attributes it is told to", async () => {
  const { asked, client } = receivingClient({
    Messages: [{
      MessageId: "m1",
      Body: "x",
      ReceiptHandle: "r1",
      Attributes: { ApproximateReceiveCount: "2", MessageGroupId: "g" },
      MessageAttributes: {
        kind: { DataType: "String", StringValue: "order" },
        blob: { DataType: "Binary", BinaryValue: new Uint8Array([1]) },
      },
    }],
  });
  const base = "https://sqs.eu-west-1.amazonaws.com/123456789012";
  const [message] = await createSqsQueue({
    client,
    queueUrl: `${base}/events.fifo`,
    maxMessages: 10,
    waitTimeSeconds: 0,
    systemAttributes: ["ApproximateReceiveCount", "SentTimestamp"],
    messageAttributes: true,
  }).receive();
  const names = ["MessageGroupId", "ApproximateReceiveCount", "SentTimestamp"];
  assert.deepEqual(asked[0]!.MessageSystemAttributeNames, names);
  assert.deepEqual(asked[0]!.AttributeNames, names);
  assert.deepEqual(asked[0]!.MessageAttributeNames, ["All"]);
  assert.deepEqual(message, {
    id: "m1",
    body: "x",
    receiptHandle: "r1",
    groupId: "g",
    systemAttributes: { ApproximateReceiveCount: "2", MessageGroupId: "g" },
    messageAttributes: {
      kind: { dataType: "String", stringValue: "order" },
      blob: { dataType: "Binary" },
    },
  });

  const [plain] = await createSqsQueue({
    client,
    queueUrl: `${base}/events`,
    maxMessages: 10,
    waitTimeSeconds: 0,
    systemAttributes: ["ApproximateReceiveCount"],
  }).receive();
  assert.deepEqual(asked[1]!.MessageSystemAttributeNames, [
    "ApproximateReceiveCount",
  ]);
  assert.equal(asked[1]!.MessageAttributeNames, undefined);
  assert.equal(plain?.messageAttributes, undefined);
  assert.equal(plain?.systemAttributes?.ApproximateReceiveCount, "2");
});

Deno.test("createSqsQueue() sets one message's visibility on fauxqs", async () => {
  const fauxqs = await startFauxqs();
  try {
    const url = await fauxqs.createQueue("later", { VisibilityTimeout: "60" });
    await fauxqs.send(url, ["back soon"]);
    const queue = createSqsQueue({
      client: fauxqs.client,
      queueUrl: url,
      maxMessages: 10,
      waitTimeSeconds: 0,
      systemAttributes: ["ApproximateReceiveCount"],
    });
    const [first] = await queue.receive();
    assert.equal(first?.systemAttributes?.ApproximateReceiveCount, "1");
    await queue.setVisibility(first!, 0);
    const [again] = await queue.receive();
    assert.equal(again?.body, "back soon");
    assert.equal(again?.systemAttributes?.ApproximateReceiveCount, "2");
    await assert.rejects(
      queue.setVisibility(first!, 10),
      /MessageNotInflight|receipt/i,
    );
  } finally {
    await fauxqs.stop();
  }
});
