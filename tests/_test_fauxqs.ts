/**
 * A real `npm:fauxqs` SQS-protocol server for the suites, run as a subprocess on a free
 * 127.0.0.1 port (so it can be paused with SIGSTOP), with an SQS client to set it up.
 *
 * Run directly (`deno run -A tests/_test_fauxqs.ts`), this file is that server: it prints
 * `fauxqs listening on PORT` and serves until killed.
 *
 * @module
 */
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageBatchCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";

/** A running fauxqs server. */
export interface Fauxqs {
  /** Endpoint for `QUEUE_ENDPOINT_URL`, e.g. `http://127.0.0.1:4566`. */
  readonly endpoint: string;
  /** The server subprocess. */
  readonly child: Deno.ChildProcess;
  /** A client on it (region us-east-1, dummy keys). */
  readonly client: SQSClient;
  /** Environment a forwarder needs to reach `queueUrl`. */
  env(queueUrl: string): Record<string, string>;
  /** Creates a queue; resolves with its URL (path style, on 127.0.0.1). */
  createQueue(
    name: string,
    attributes?: Record<string, string>,
  ): Promise<string>;
  /** Sends bodies with concurrent SendMessageBatch calls of 10. */
  send(queueUrl: string, bodies: readonly string[]): Promise<void>;
  /** Messages waiting (visible) and in flight (received, not deleted). */
  counts(queueUrl: string): Promise<{ visible: number; inFlight: number }>;
  /** Freezes the server (SIGSTOP). */
  pause(): void;
  /** Unfreezes it (SIGCONT). */
  resume(): void;
  /** Kills the server and closes the client. */
  stop(): Promise<void>;
}

const ACCOUNT = "000000000000";

/** Starts fauxqs as a subprocess and waits until it listens. */
export async function startFauxqs(): Promise<Fauxqs> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL(import.meta.url).pathname],
    env: { FAUXQS_LOGGER: "false" },
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`fauxqs ended before listening: ${text}`);
    text += value;
  }
  await reader.cancel();
  const port = Number(/listening on (\d+)/.exec(text)?.[1]);
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new SQSClient({
    region: "us-east-1",
    endpoint,
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
  return {
    endpoint,
    child,
    client,
    env: (queueUrl) => ({
      QUEUE_URL: queueUrl,
      QUEUE_ENDPOINT_URL: endpoint,
      QUEUE_REGION: "us-east-1",
      QUEUE_ACCESS_KEY_ID: "test",
      QUEUE_SECRET_ACCESS_KEY: "test",
    }),
    async createQueue(name, attributes) {
      await client.send(
        new CreateQueueCommand({ QueueName: name, Attributes: attributes }),
      );
      return `${endpoint}/${ACCOUNT}/${name}`;
    },
    async send(queueUrl, bodies) {
      const batches: Promise<void>[] = [];
      for (let i = 0; i < bodies.length; i += 10) {
        batches.push(
          client.send(
            new SendMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: bodies.slice(i, i + 10).map((body, j) => ({
                Id: String(j),
                MessageBody: body,
              })),
            }),
          ).then((reply) => {
            const failed = reply.Failed?.[0];
            if (failed) {
              throw new Error(`fauxqs refused a message: ${failed.Message}`);
            }
          }),
        );
        if (batches.length >= 20) await Promise.all(batches.splice(0));
      }
      await Promise.all(batches);
    },
    async counts(queueUrl) {
      const reply = await client.send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: [
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
          ],
        }),
      );
      return {
        visible: Number(reply.Attributes?.ApproximateNumberOfMessages),
        inFlight: Number(
          reply.Attributes?.ApproximateNumberOfMessagesNotVisible,
        ),
      };
    },
    pause: () => child.kill("SIGSTOP"),
    resume: () => child.kill("SIGCONT"),
    async stop() {
      client.destroy();
      try {
        child.kill("SIGCONT");
        child.kill("SIGKILL");
      } catch {
        // already ended
      }
      await child.status;
    },
  };
}

if (import.meta.main) {
  const { startFauxqs } = await import("fauxqs");
  const server = await startFauxqs({ port: 0, logger: false });
  console.log(`fauxqs listening on ${server.port}`);
}
