/**
 * The peers of the forwarder benchmark, each run as a subprocess by `bench/forwarder.ts`
 * as `deno run -A bench/_forwarder_peers.ts MODE ...ARGS`:
 *
 * - `bare ENDPOINT QUEUE_URL RECEIVERS TOTAL`: the queue's own ceiling, receive + batch
 *   delete with no HTTP, until TOTAL messages are deleted, on the SDK's default client;
 * - `bare-same-client ...`: the same loop on the forwarder's own SQS client;
 * - `naive ENDPOINT QUEUE_URL SINK`: a naive receive-post-delete loop: receive up to 10, post one by one,
 *   delete one by one;
 * - `consumer ENDPOINT QUEUE_URL SINK`: `npm:sqs-consumer` with batchSize 10;
 * - `relay PORT TARGET DELAY_MS`: an HTTP relay delaying every queue call.
 *
 * @module
 */
import {
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import { createHttp1Client } from "../lib/http1/client.ts";
import { exchangeOver } from "../lib/http1/exchange.ts";
import { createSqsClient } from "../services/forwarder/sqs_client.ts";
import { createMemoryLog } from "../lib/_test_memory_log.ts";

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function sqs(endpoint: string): SQSClient {
  return new SQSClient({
    region: "us-east-1",
    endpoint,
    credentials: { accessKeyId: "bench", secretAccessKey: "bench" },
  });
}

/** The forwarder's own client: SDK on the pooled HTTP/1.1 transport. */
function forwarderSqs(endpoint: string, queueUrl: string): SQSClient {
  return createSqsClient(
    {
      QUEUE_REGION: "us-east-1",
      QUEUE_URL: queueUrl,
      QUEUE_ENDPOINT_URL: endpoint,
      QUEUE_ACCESS_KEY_ID: "bench",
      QUEUE_SECRET_ACCESS_KEY: "bench",
    },
    createMemoryLog(),
    exchangeOver(createHttp1Client().request),
  );
}

/** Posts one body the way both peers do, reading the reply. */
async function postBody(sink: string, body: string | undefined) {
  const response = await fetch(sink, {
    method: "POST",
    headers: { Authorization: "t", "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
}

/** Receive + batch delete, no HTTP, until `total` messages are deleted. */
async function bareLoop(
  client: SQSClient,
  [, queueUrl, receivers, total]: string[],
): Promise<void> {
  let deleted = 0;
  await Promise.all(
    Array.from({ length: Number(receivers) }, async () => {
      while (deleted < Number(total)) {
        const { Messages = [] } = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
          }),
        );
        if (Messages.length === 0) continue;
        await client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: Messages.map((m, i) => ({
              Id: String(i),
              ReceiptHandle: m.ReceiptHandle,
            })),
          }),
        );
        deleted += Messages.length;
      }
    }),
  );
  client.destroy();
}

/** Peers, each a loop that runs until killed (the bare one until it deleted `total`). */
export const PEERS: Record<string, (args: string[]) => Promise<void>> = {
  bare: (args) => bareLoop(sqs(args[0]!), args),
  "bare-same-client": (args) =>
    bareLoop(forwarderSqs(args[0]!, args[1]!), args),

  async naive([endpoint, queueUrl, sink]) {
    const client = sqs(endpoint!);
    while (true) {
      const { Messages = [] } = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 1,
        }),
      );
      for (const message of Messages) {
        await postBody(sink!, message.Body);
        await client.send(
          new DeleteMessageCommand({
            QueueUrl: queueUrl,
            ReceiptHandle: message.ReceiptHandle,
          }),
        );
      }
    }
  },

  async consumer([endpoint, queueUrl, sink]) {
    const { Consumer } = await import("sqs-consumer");
    const consumer = Consumer.create({
      queueUrl: queueUrl!,
      sqs: sqs(endpoint!),
      batchSize: 10,
      waitTimeSeconds: 1,
      handleMessage: async (message) => {
        await postBody(sink!, message.Body);
        return message;
      },
    });
    consumer.start();
    await new Promise(() => {});
  },

  async relay([port, target, delayMs]) {
    const drop = new Set(["host", "content-length", "connection"]);
    Deno.serve(
      { hostname: "127.0.0.1", port: Number(port), onListen: () => {} },
      async (request) => {
        const body = await request.arrayBuffer();
        await pause(Number(delayMs));
        const headers = [...request.headers].filter(([k]) => !drop.has(k));
        const url = new URL(request.url);
        const reply = await fetch(`${target}${url.pathname}${url.search}`, {
          method: request.method,
          headers,
          body: request.method === "GET" ? undefined : body,
        });
        const replyHeaders = [...reply.headers].filter(([k]) => !drop.has(k));
        return new Response(await reply.arrayBuffer(), {
          status: reply.status,
          headers: replyHeaders,
        });
      },
    );
    await new Promise(() => {});
  },
};

if (import.meta.main) {
  const [mode, ...args] = Deno.args;
  const peerRun = PEERS[mode ?? ""];
  if (!peerRun) {
    console.error(
      `Unknown mode "${mode}": expected one of ${
        Object.keys(PEERS).join(", ")
      }`,
    );
    Deno.exit(2);
  }
  await peerRun(args);
}
