/**
 * The `forwarder` role through `main.ts` against fauxqs and an endpoint whose responses
 * break HTTP/1.1 framing: each such message stays in the queue, and the next message
 * is still posted and deleted.
 */
import assert from "node:assert/strict";
import { startScriptedServer } from "../lib/http1/_test_helpers.ts";
import { startFauxqs } from "./_test_fauxqs.ts";
import { startMain } from "./_test_helpers.ts";

/** The endpoint's response to each message body, broken in one way each. */
const BROKEN: Record<string, string[]> = {
  "empty-length": ["HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n"],
  "length-and-chunked": [
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\nok",
  ],
  "plus-length": ["HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok"],
  "bare-lf": ["HTTP/1.1 200 OK\nContent-Length: 0\n\n"],
  "bad-status": ["HTTP/1.1 20 OK\r\nContent-Length: 0\r\n\r\n"],
};

async function until(check: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("Condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

Deno.test("forwarder role leaves a message whose post got an invalid response in the queue, and posts the next", async () => {
  const fauxqs = await startFauxqs();
  const posted: string[] = [];
  const endpoint = startScriptedServer((_, body) => {
    posted.push(body);
    const broken = BROKEN[JSON.parse(body) as string];
    // A broken response's connection is closed soon after, as a real one would be.
    return broken
      ? { steps: [...broken, 200], close: true }
      : { steps: ["HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"] };
  });
  const url = await fauxqs.createQueue("broken-endpoint", {
    VisibilityTimeout: "30",
  });
  const main = startMain(["forwarder"], {
    env: {
      ...fauxqs.env(url),
      HTTP_ENDPOINT: `${endpoint.url}/in`,
      AUTH_BEARER_TOKEN: "Bearer t",
      QUEUE_WAIT_TIME_SECONDS: "1",
      FORWARD_CONCURRENCY: "1",
    },
  });
  const lines = () => [...main.stdout, ...main.stderr];
  try {
    for (const name of Object.keys(BROKEN)) {
      await fauxqs.send(url, [name]);
      await main.waitFor(
        /\[ERROR\] Cannot post message .*: .*Invalid .*; left in the queue$/,
      );
      await fauxqs.send(url, [`fine after ${name}`]);
      await until(async () =>
        posted.includes(JSON.stringify(`fine after ${name}`)) &&
        (await fauxqs.counts(url)).inFlight ===
          Object.keys(BROKEN).indexOf(name) + 1
      );
    }
    const counts = await fauxqs.counts(url);
    // Every broken one still there (invisible until its time-out), every fine one gone.
    assert.deepEqual(counts, {
      visible: 0,
      inFlight: Object.keys(BROKEN).length,
    });
    // Each post went out once: an invalid response is not a reason to send again.
    for (const name of Object.keys(BROKEN)) {
      assert.equal(
        posted.filter((body) => body === JSON.stringify(name)).length,
        1,
        name,
      );
    }
    assert.equal(
      lines().filter((line) => /Cannot post message/.test(line)).length,
      Object.keys(BROKEN).length,
    );
  } finally {
    assert.equal(await main.stop("SIGTERM"), 0);
    await endpoint.stop();
    await fauxqs.stop();
  }
});
