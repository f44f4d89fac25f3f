import assert from "node:assert/strict";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { startFauxqs } from "../../tests/_test_fauxqs.ts";
import { createForwarder, type ForwarderTuning } from "./forwarder.ts";
import { createMetrics } from "./metrics.ts";
import { createPoster } from "./poster.ts";
import { createSqsQueue, type Queue } from "./sqs_queue.ts";
import { startSink } from "./_test_sink.ts";
import { createFakeQueue, messages, until } from "./_test_queue.ts";
import type { SQSClient } from "@aws-sdk/client-sqs";

function setup(
  client: SQSClient,
  queueUrl: string,
  endpoint: string,
  tuning: ForwarderTuning = {},
  timeoutMs = 2000,
) {
  const log = createMemoryLog();
  const metrics = createMetrics();
  const forwarder = createForwarder({
    queue: createSqsQueue({
      client,
      queueUrl,
      maxMessages: 10,
      waitTimeSeconds: 1,
    }),
    post: createPoster({ endpoint, token: "Bearer t", timeoutMs }),
    log,
    metrics,
    settings: { backoff: { baseMs: 50, maxMs: 200 }, ...tuning },
  });
  return { log, metrics, forwarder, running: forwarder.run() };
}

Deno.test("createForwarder()", async (t) => {
  const fauxqs = await startFauxqs();
  const empty = (url: string) => async () => {
    const counts = await fauxqs.counts(url);
    return counts.visible + counts.inFlight === 0;
  };

  await t.step(
    "posts each body once and deletes after 2xx, 4xx and 5xx",
    async () => {
      const url = await fauxqs.createQueue("statuses");
      const sink = startSink({
        status: (r) =>
          r.body.includes("four") ? 404 : r.body.includes("five") ? 503 : 200,
      });
      const bodies = [
        "two",
        "four",
        "five",
        ...Array.from({ length: 22 }, (_, i) => `m${i}`),
      ];
      await fauxqs.send(url, bodies);
      const { log, metrics, forwarder } = setup(fauxqs.client, url, sink.url);
      await until(empty(url));
      await forwarder.stop();
      await sink.stop();
      assert.deepEqual(
        sink.bodies().sort(),
        bodies.map((b) => JSON.stringify(b)).sort(),
      );
      for (const body of bodies) assert.ok(log.at("INFO").includes(body));
      assert.equal(metrics.value("deleted"), bodies.length);
      assert.deepEqual(log.at("ERROR"), []);
    },
  );

  await t.step(
    "leaves a message whose post fails and goes on with the others",
    async () => {
      const url = await fauxqs.createQueue("refused", {
        VisibilityTimeout: "1",
      });
      const sink = startSink();
      const port = sink.port;
      await sink.stop();
      await fauxqs.send(url, ["lost-for-now"]);
      const { log, forwarder } = setup(
        fauxqs.client,
        url,
        `http://127.0.0.1:${port}/`,
      );
      await until(() => Promise.resolve(log.at("ERROR").length > 0));
      assert.match(
        log.at("ERROR")[0]!,
        /^Cannot post message .+; left in the queue$/,
      );
      const back = startSink({ port });
      await back.waitFor(1);
      await until(empty(url));
      await forwarder.stop();
      await back.stop();
      assert.deepEqual(back.bodies(), ['"lost-for-now"']);
    },
  );

  await t.step(
    "leaves messages given a retry status in the queue",
    async () => {
      const url = await fauxqs.createQueue("retry", { VisibilityTimeout: "1" });
      let calls = 0;
      const sink = startSink({ status: () => ++calls === 1 ? 503 : 200 });
      await fauxqs.send(url, ["again"]);
      const { log, metrics, forwarder } = setup(fauxqs.client, url, sink.url, {
        retryStatuses: new Set([503]),
      });
      await sink.waitFor(1);
      assert.equal((await fauxqs.counts(url)).inFlight, 1);
      await sink.waitFor(2);
      await until(empty(url));
      await forwarder.stop();
      await sink.stop();
      assert.equal(metrics.value("retried"), 1);
      assert.equal(
        log.at("WARNING").filter((line) => /returned 503/.test(line)).length,
        1,
      );
    },
  );

  await t.step(
    "logs a refused batch-delete entry and leaves it for redelivery",
    async () => {
      const url = await fauxqs.createQueue("delete", {
        VisibilityTimeout: "1",
      });
      const sink = startSink();
      await fauxqs.send(url, ["good", "bad"]);
      const real = createSqsQueue({
        client: fauxqs.client,
        queueUrl: url,
        maxMessages: 10,
        waitTimeSeconds: 1,
      });
      let spoiled = 0;
      const log = createMemoryLog();
      const forwarder = createForwarder({
        // fauxqs never refuses an entry (nor does SQS for a stale handle), so the
        // first delete of "bad" is reported here as a refused entry.
        queue: {
          ...real,
          async deleteBatch(messages) {
            const bad = messages.find((m) => m.body === "bad");
            if (!bad || spoiled++ > 0) return await real.deleteBatch(messages);
            const failed = await real.deleteBatch(
              messages.filter((m) => m !== bad),
            );
            return [...failed, {
              message: bad,
              reason: "ReceiptHandleIsInvalid: stale handle",
            }];
          },
        },
        post: createPoster({ endpoint: sink.url, token: "t", timeoutMs: 2000 }),
        log,
      });
      const running = forwarder.run();
      await until(empty(url));
      await forwarder.stop();
      await running;
      await sink.stop();
      assert.match(
        log.at("ERROR")[0]!,
        /^Cannot delete message \S+: .+; it will be delivered again$/,
      );
      // "bad" comes back after its refused delete. With a 1 s visibility timeout a
      // loaded machine may also redeliver "good", so count rather than compare.
      const bodies = sink.bodies();
      assert.ok(
        bodies.filter((b) => b === '"bad"').length >= 2,
        `bodies: ${bodies}`,
      );
      assert.ok(bodies.includes('"good"'), `bodies: ${bodies}`);
    },
  );

  await t.step("extends the visibility while a post outlasts it", async () => {
    const url = await fauxqs.createQueue("slow");
    const sink = startSink({ delayMs: 2600 });
    await fauxqs.send(url, ["slow"]);
    const { forwarder } = setup(fauxqs.client, url, sink.url, {
      visibilityTimeout: 1,
      receivers: 2,
    }, 5000);
    await until(empty(url));
    await forwarder.stop();
    await sink.stop();
    assert.deepEqual(sink.bodies(), ['"slow"']);
  });

  await t.step("backs off and recovers when receiving fails", async () => {
    const url = `${fauxqs.endpoint}/000000000000/later`;
    const sink = startSink();
    const { log, forwarder } = setup(fauxqs.client, url, sink.url);
    await until(() => Promise.resolve(log.at("ERROR").length >= 2));
    assert.match(
      log.at("ERROR")[0]!,
      /^Cannot receive from the queue: .+; retrying in \d+ ms$/,
    );
    // The SDK's "The specified queue does not exist." loses its period before ";".
    assert.doesNotMatch(log.at("ERROR")[0]!, /\.;/);
    await fauxqs.createQueue("later");
    await fauxqs.send(url, ["finally"]);
    await sink.waitFor(1);
    await until(empty(url));
    await forwarder.stop();
    await sink.stop();
  });

  await t.step(
    "stop() finishes the batch in hand and receives no more",
    async () => {
      const url = await fauxqs.createQueue("stopping");
      const sink = startSink({ delayMs: 500 });
      await fauxqs.send(url, Array.from({ length: 15 }, (_, i) => `s${i}`));
      const { forwarder, running } = setup(fauxqs.client, url, sink.url, {
        concurrency: 10,
      });
      await sink.waitFor(1);
      await forwarder.stop();
      await running;
      const counts = await fauxqs.counts(url);
      assert.equal(sink.requests.length, 10);
      assert.deepEqual(counts, { visible: 5, inFlight: 0 });
      await sink.stop();
    },
  );

  await fauxqs.stop();
});

Deno.test("createForwarder() pauses after an empty receive when told to", async () => {
  let receives = 0;
  const emptyQueue: Queue = {
    visibilityTimeout: () => Promise.resolve(30),
    receive: () => {
      receives++;
      return Promise.resolve([]);
    },
    deleteBatch: () => Promise.resolve([]),
    extendVisibility: () => Promise.resolve([]),
    setVisibility: () => Promise.resolve(),
  };
  const forwarder = createForwarder({
    queue: emptyQueue,
    post: () => Promise.reject(new Error("nothing to post")),
    log: createMemoryLog(),
    settings: { receivers: 2, emptyReceivePauseMs: 60_000 },
  });
  const running = forwarder.run();
  await new Promise((resolve) => setTimeout(resolve, 100));
  // One call per receiver, then the pause (without it: thousands in 100 ms).
  assert.equal(receives, 2);
  await forwarder.stop(); // ends the pause at once
  await running;
  assert.equal(receives, 2);
});

Deno.test("createForwarder() asks for the queue's visibility timeout once, also when it fails", async () => {
  let asked = 0;
  let receives = 0;
  const deleted: string[] = [];
  const queue: Queue = {
    visibilityTimeout: () => {
      asked++;
      return Promise.reject(new Error("AccessDenied"));
    },
    receive: () => {
      receives++;
      return Promise.resolve(
        receives <= 3
          ? [{ id: `m${receives}`, body: "b", receiptHandle: `r${receives}` }]
          : [],
      );
    },
    deleteBatch: (messages) => {
      deleted.push(...messages.map((message) => message.id));
      return Promise.resolve([]);
    },
    extendVisibility: () => Promise.resolve([]),
    setVisibility: () => Promise.resolve(),
  };
  const log = createMemoryLog();
  const forwarder = createForwarder({
    queue,
    post: () => Promise.resolve({ status: 200 }),
    log,
    settings: { emptyReceivePauseMs: 60_000 },
  });
  const running = forwarder.run();
  while (deleted.length < 3) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await forwarder.stop();
  await running;
  assert.equal(asked, 1);
  assert.equal(log.at("WARNING").length, 1);
  assert.match(log.at("WARNING")[0]!, /assuming 30 s/);
});

Deno.test("createForwarder() deletes after a reply that is not 2xx with one WARNING naming the message", async () => {
  const batch = messages("m", 5);
  const queue = createFakeQueue([batch]);
  const log = createMemoryLog();
  const replies: Record<string, { status: number; location?: string }> = {
    m0: { status: 200 },
    m1: { status: 401 },
    m2: { status: 404 },
    m3: { status: 308, location: "https://new.example.com/in" },
    m4: { status: 503 },
  };
  const forwarder = createForwarder({
    queue,
    post: (body) => Promise.resolve(replies[body]!),
    log,
    settings: { retryStatuses: new Set([503]) },
  });
  const running = forwarder.run();
  await until(() => Promise.resolve(queue.deleted.length === 4));
  await forwarder.stop();
  await running;
  assert.deepEqual(queue.deleted.toSorted(), ["m0", "m1", "m2", "m3"]);
  const keep =
    "(any status deletes the message; list 401 in FORWARD_RETRY_STATUSES to keep such messages)";
  assert.deepEqual(log.at("WARNING").toSorted(), [
    `Endpoint returned 308 Permanent Redirect (Location "https://new.example.com/in") for message m3: deleted, the redirect not followed (any status deletes the message; set HTTP_ENDPOINT to the new address, or list 308 in FORWARD_RETRY_STATUSES to keep such messages)`,
    `Endpoint returned 401 Unauthorized for message m1: deleted ${keep}`,
    `Endpoint returned 404 Not Found for message m2: deleted ${
      keep.replace("401", "404")
    }`,
    "Endpoint returned 503 for message m4: left in the queue for redelivery",
  ]);
});

Deno.test("createForwarder() on a queue whose visibility timeout is 0 asks for 30 s on receive, once warned", async () => {
  const queue = createFakeQueue([messages("z", 1)], 0);
  const log = createMemoryLog();
  const forwarder = createForwarder({
    queue,
    post: () => Promise.resolve({ status: 200 }),
    log,
  });
  const running = forwarder.run();
  await until(() => Promise.resolve(queue.deleted.length === 1));
  await until(() => Promise.resolve(queue.receives >= 2));
  await forwarder.stop();
  await running;
  // Every receive, the first included: a message received is never visible at once.
  assert.ok(queue.receiveVisibility.every((seconds) => seconds === 30));
  assert.deepEqual(log.at("WARNING").length, 1);
  assert.match(
    log.at("WARNING")[0]!,
    /^The queue's visibility timeout is 0 s: .*set QUEUE_VISIBILITY_TIMEOUT/,
  );
});

Deno.test("createForwarder() extends a short visibility timeout by 30 s", async () => {
  const queue = createFakeQueue([messages("s", 1)]);
  const log = createMemoryLog();
  const forwarder = createForwarder({
    queue,
    // Outlasts two thirds of the 1 s asked for on receive: one extension.
    post: async () => {
      await until(() => Promise.resolve(queue.extended.length > 0));
      return { status: 200 };
    },
    log,
    settings: { visibilityTimeout: 1 },
  });
  const running = forwarder.run();
  await until(() => Promise.resolve(queue.deleted.length === 1));
  await forwarder.stop();
  await running;
  assert.equal(queue.receiveVisibility[0], 1);
  assert.deepEqual(queue.extendedBy, [30]);
  assert.deepEqual(log.at("WARNING"), []);
});
