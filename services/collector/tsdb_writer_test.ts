import assert from "node:assert/strict";
import { sleep } from "../../lib/backoff.ts";
import { startStore } from "./_store_stand_in.ts";
import { createMemoryLog } from "../../lib/log.ts";
import { createLineSender } from "./line_sender.ts";
import { tsdbTarget } from "./tsdb_target.ts";
import { createTsdbWriter } from "./tsdb_writer.ts";

function writerFor(port: number, bufferLimit = 100) {
  const log = createMemoryLog();
  const target = tsdbTarget({
    host: "127.0.0.1",
    port,
    api: "v1",
    database: "home",
    username: "u",
    password: "p",
  });
  const writer = createTsdbWriter({
    send: createLineSender(target),
    label: target.label,
    bufferLimit,
    timeoutMs: 200,
    backoff: { baseMs: 10, maxMs: 40 },
    log,
  });
  return { writer, log };
}

Deno.test("createTsdbWriter() posts the lines to /write with credentials", async () => {
  const store = startStore();
  const { writer, log } = writerFor(store.port);
  try {
    writer.write(["a value=1 1", "b value=2 2"]);
    assert.equal(await writer.flush(2000), true);
    assert.deepEqual(store.bodies, ["a value=1 1\nb value=2 2"]);
    assert.equal(
      store.requests[0]!.url,
      `http://127.0.0.1:${store.port}/write?db=home&precision=ms`,
    );
    assert.equal(store.requests[0]!.auth, `Basic ${btoa("u:p")}`);
    assert.deepEqual(log.at("ERROR"), []);
    assert.deepEqual(log.at("WARNING"), []);
  } finally {
    await writer.close(1000);
    await store.close();
  }
});

Deno.test("createTsdbWriter() retries on 5xx, 429 and time-outs until written", async () => {
  const store = startStore();
  const { writer, log } = writerFor(store.port);
  try {
    store.statuses.push(500, 429, "hang", 503);
    writer.write(["a value=1 1"]);
    assert.equal(await writer.flush(5000), true);
    assert.deepEqual(store.lines(), ["a value=1 1"]);
    assert.equal(store.requests.length, 5);
    assert.equal(log.at("WARNING").length, 1);
    assert.match(
      log.at("WARNING")[0]!,
      /unavailable: 500 failure 500; keeping 1 points/,
    );
    assert.deepEqual(log.at("INFO"), [
      "Time-series store reachable again: wrote 1 points",
    ]);
  } finally {
    await writer.close(1000);
    await store.close();
  }
});

Deno.test("createTsdbWriter() drops a batch refused with 400 and goes on", async () => {
  const store = startStore();
  const { writer, log } = writerFor(store.port);
  try {
    store.statuses.push(400);
    writer.write(["bad line"]);
    assert.equal(await writer.flush(2000), true);
    assert.deepEqual(log.at("ERROR"), [
      "Time-series store refused 1 points, dropped: 400 failure 400",
    ]);
    writer.write(["good value=1 1"]);
    assert.equal(await writer.flush(2000), true);
    assert.deepEqual(store.lines(), ["good value=1 1"]);
  } finally {
    await writer.close(1000);
    await store.close();
  }
});

Deno.test("createTsdbWriter() keeps at most bufferLimit points, dropping the oldest", async () => {
  const store = startStore();
  const { writer, log } = writerFor(store.port, 3);
  try {
    store.statuses.push(503, 503, 503);
    writer.write(["p1 v=1 1", "p2 v=1 1"]);
    await sleep(30);
    writer.write(["p3 v=1 1", "p4 v=1 1", "p5 v=1 1"]);
    assert.equal(writer.pending <= 3, true);
    assert.equal(await writer.flush(5000), true);
    assert.deepEqual(store.lines().slice(-3), [
      "p3 v=1 1",
      "p4 v=1 1",
      "p5 v=1 1",
    ]);
    assert.ok(!store.lines().includes("p1 v=1 1"));
    assert.match(
      log.at("WARNING").find((w) => w.startsWith("Time-series buffer full"))!,
      /buffer full \(3 points\): dropped the 2 oldest/,
    );
  } finally {
    await writer.close(1000);
    await store.close();
  }
});

Deno.test("createTsdbWriter() close() gives up after its bound and says what was lost", async () => {
  const store = startStore();
  await store.close();
  const { writer, log } = writerFor(store.port);
  writer.write(["a v=1 1", "b v=1 1"]);
  const started = Date.now();
  await writer.close(300);
  assert.ok(Date.now() - started < 2000);
  assert.equal(log.at("ERROR").length, 1);
  assert.match(
    log.at("ERROR")[0]!,
    /^2 points not written to the time-series store: /,
  );
  writer.write(["ignored v=1 1"]);
  assert.equal(writer.pending, 2);
});
