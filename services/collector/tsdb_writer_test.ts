import assert from "node:assert/strict";
import { withFakeClock } from "../../tests/_test_clock.ts";
import { startStore } from "./_test_store.ts";
import { createMemoryLog } from "../../lib/_test_memory_log.ts";
import { createLineSender } from "./line_sender.ts";
import { tsdbTarget } from "./tsdb_target.ts";
import { createTsdbWriter } from "./tsdb_writer.ts";
import { partialWriteDropped } from "./store_verdict.ts";
import { openPointQueue, type PointQueue } from "./point_queue.ts";

function writerFor(
  port: number,
  bufferLimit = 100,
  backoff = { baseMs: 10, maxMs: 40 },
) {
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
    backoff,
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
      /unavailable: 500 failure 500; keeping the points for retry$/,
    );
    assert.deepEqual(log.at("INFO"), [
      "Time-series store reachable again: wrote 1 point",
    ]);
    assert.equal(writer.dropped, 0);
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
      "Time-series store refused 1 point, dropped: 400 failure 400",
    ]);
    assert.equal(writer.dropped, 1);
    writer.write(["good value=1 1"]);
    assert.equal(await writer.flush(2000), true);
    assert.deepEqual(store.lines(), ["good value=1 1"]);
  } finally {
    await writer.close(1000);
    await store.close();
  }
});

Deno.test("createTsdbWriter() counts only the points a partial write dropped", async (t) => {
  const conflict =
    'field type conflict: input field "value" on measurement "m" is type float, already exists as type integer';
  const cases = [
    {
      name: "InfluxDB 1.x: dropped=N",
      reply: {
        status: 400,
        body: { error: `partial write: ${conflict} dropped=1` },
      },
      lines: 3,
      refused: 1,
      error:
        `refused 1 of 3 points, dropped: 400 partial write: ${conflict} dropped=1`,
    },
    {
      name: "InfluxDB 1.x: lines that do not parse, with dropped=0",
      reply: {
        status: 400,
        body: {
          error:
            "partial write: unable to parse 'x': invalid field format\nunable to parse 'y': invalid field format dropped=0",
        },
      },
      lines: 4,
      refused: 2,
      error:
        "refused 2 of 4 points, dropped: 400 partial write: unable to parse 'x': invalid field format\nunable to parse 'y': invalid field format dropped=0",
    },
    {
      name: "InfluxDB 2: 422 with the message",
      reply: {
        status: 422,
        body: {
          code: "unprocessable entity",
          message:
            `failure writing points to database: partial write: ${conflict} dropped=2`,
        },
      },
      lines: 5,
      refused: 2,
      error:
        `refused 2 of 5 points, dropped: 422 failure writing points to database: partial write: ${conflict} dropped=2`,
    },
    {
      name: "every point dropped",
      reply: {
        status: 400,
        body: { error: `partial write: ${conflict} dropped=2` },
      },
      lines: 2,
      refused: 2,
      error:
        `refused 2 points, dropped: 400 partial write: ${conflict} dropped=2`,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      const store = startStore();
      const { writer, log } = writerFor(store.port);
      try {
        store.statuses.push(c.reply);
        writer.write(Array.from({ length: c.lines }, (_, i) => `m v=${i} 1`));
        assert.equal(await writer.flush(2000), true);
        assert.equal(writer.dropped, c.refused);
        assert.deepEqual(log.at("ERROR"), [`Time-series store ${c.error}`]);
        const written = c.lines - c.refused;
        assert.deepEqual(
          log.at("DEBUG"),
          written === 0 ? [] : [`Wrote ${written} points`],
        );
        assert.equal(
          store.requests.length,
          1,
          "a partial write is not retried",
        );
      } finally {
        await writer.close(1000);
        await store.close();
      }
    });
  }
});

Deno.test("partialWriteDropped() reads dropped=N plus the lines that did not parse", () => {
  assert.equal(partialWriteDropped("partial write: x dropped=3"), 3);
  assert.equal(
    partialWriteDropped(
      "partial write: unable to parse 'a b': bad\nunable to parse 'c': bad dropped=0",
    ),
    2,
  );
  // Not partial: the whole batch was refused.
  assert.equal(partialWriteDropped("unable to parse 'a b': bad"), undefined);
  assert.equal(partialWriteDropped("failure 400"), undefined);
  assert.equal(partialWriteDropped("partial write: no count"), undefined);
  // A quoted line that holds "dropped=" does not count; the count ends the message.
  assert.equal(
    partialWriteDropped(
      "partial write: unable to parse 'm dropped=9': bad dropped=0",
    ),
    1,
  );
});

Deno.test("createTsdbWriter() warns when a partial write dropped no point", async () => {
  const store = startStore();
  const { writer, log } = writerFor(store.port);
  try {
    store.statuses.push({
      status: 400,
      body: {
        error: "partial write: points beyond retention policy dropped=0",
      },
    });
    writer.write(["a v=1 1", "b v=1 1"]);
    assert.equal(await writer.flush(2000), true);
    assert.equal(writer.dropped, 0);
    assert.deepEqual(log.at("ERROR"), []);
    assert.deepEqual(log.at("WARNING"), [
      "Time-series store dropped no point but said: 400 partial write: points beyond retention policy dropped=0",
    ]);
    assert.deepEqual(log.at("DEBUG"), ["Wrote 2 points"]);
  } finally {
    await writer.close(1000);
    await store.close();
  }
});

Deno.test("createTsdbWriter() states no count in the outage WARNING that later writes would make wrong", async () => {
  const store = startStore();
  const { writer, log } = writerFor(store.port, 100, {
    baseMs: 200,
    maxMs: 400,
  });
  try {
    store.statuses.push(503, 503);
    writer.write(["a v=1 1"]);
    await waitUntil(() => log.at("WARNING").length === 1);
    // The next passes add to the buffer while the store is still down.
    writer.write(["b v=1 1", "c v=1 1"]);
    assert.equal(await writer.flush(5000), true);
    assert.deepEqual(log.at("WARNING"), [
      `Time-series store http://127.0.0.1:${store.port}/write?db=home&precision=ms unavailable: 503 failure 503; keeping the points for retry`,
    ]);
    assert.deepEqual(log.at("INFO"), [
      "Time-series store reachable again: wrote 3 points",
    ]);
    assert.deepEqual(store.lines(), ["a v=1 1", "b v=1 1", "c v=1 1"]);
  } finally {
    await writer.close(1000);
    await store.close();
  }
});

Deno.test("createTsdbWriter() sends every point to a healthy store, whatever bufferLimit", async () => {
  const store = startStore();
  const { writer, log } = writerFor(store.port, 3);
  try {
    const lines = Array.from({ length: 8 }, (_, i) => `p${i} v=1 1`);
    writer.write(lines);
    assert.equal(await writer.flush(2000), true);
    assert.deepEqual(store.lines(), lines);
    assert.equal(writer.dropped, 0);
    assert.deepEqual(log.at("WARNING"), []);
  } finally {
    await writer.close(1000);
    await store.close();
  }
});

Deno.test("createTsdbWriter() keeps at most bufferLimit points after a failure, dropping the oldest", async () => {
  const store = startStore();
  const { writer, log } = writerFor(store.port, 3, { baseMs: 200, maxMs: 400 });
  try {
    store.statuses.push(503, 503, 503);
    writer.write(["p1 v=1 1", "p2 v=1 1"]);
    await waitUntil(() => log.at("WARNING").length === 1);
    // Queued behind the failed batch, not yet tried: kept for now.
    writer.write(["p3 v=1 1", "p4 v=1 1", "p5 v=1 1"]);
    assert.equal(writer.pending, 5);
    // The retry of all five fails: the two oldest go.
    await waitUntil(() => store.requests.length === 2);
    await waitUntil(() => writer.pending === 3);
    assert.equal(writer.dropped, 2);
    assert.equal(await writer.flush(5000), true);
    assert.deepEqual(store.lines(), ["p3 v=1 1", "p4 v=1 1", "p5 v=1 1"]);
    assert.deepEqual(log.at("WARNING"), [
      `Time-series store http://127.0.0.1:${store.port}/write?db=home&precision=ms unavailable: 503 failure 503; keeping the points for retry`,
      "Time-series buffer full (3 points): dropped the 2 oldest",
    ]);
  } finally {
    await writer.close(1000);
    await store.close();
  }
});

async function waitUntil(condition: () => boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("Condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

Deno.test("createTsdbWriter() close() gives up after its bound and says what was lost", async () => {
  const store = startStore();
  await store.close();
  await withFakeClock(async (clock) => {
    const { writer, log } = writerFor(store.port);
    writer.write(["a v=1 1", "b v=1 1"]);
    let closed = false;
    const closing = writer.close(300).then(() => closed = true);
    await clock.tickAsync(299);
    assert.equal(closed, false);
    await clock.tickAsync(1);
    await closing;
    assert.equal(log.at("ERROR").length, 1);
    assert.match(
      log.at("ERROR")[0]!,
      /^2 points not written to the time-series store: /,
    );
    assert.equal(writer.dropped, 0);
    writer.write(["ignored v=1 1"]);
    assert.equal(writer.pending, 2);
  });
});

Deno.test("createTsdbWriter() sends the points of an earlier run first and removes only what the store acknowledged", async () => {
  const store = startStore();
  const dir = await Deno.makeTempDir({ prefix: "homewire-writer-" });
  const log = createMemoryLog();
  try {
    const path = `${dir}/buffer.sqlite3`;
    const earlier = openPointQueue(path);
    earlier.add(["old value=1 1000", "old value=2 2000"]);
    earlier.close();
    const target = tsdbTarget({
      host: "127.0.0.1",
      port: store.port,
      api: "v1",
      database: "home",
    });
    store.statuses.push(503);
    const writer = createTsdbWriter({
      send: createLineSender(target),
      label: target.label,
      bufferLimit: 100,
      timeoutMs: 500,
      backoff: { baseMs: 10, maxMs: 40 },
      queue: openPointQueue(path),
      keptIn: path,
      log,
    });
    writer.write(["new value=3 3000"]);
    assert.equal(await writer.flush(5000), true);
    await writer.close(1000);
    assert.deepEqual(log.at("INFO").slice(0, 1), [
      "Time-series buffer holds 2 points from an earlier run: writing them first, with their original times",
    ]);
    // The first batch was refused with 503 and sent again.
    assert.deepEqual(store.lines().slice(0, 2), [
      "old value=1 1000",
      "old value=2 2000",
    ]);
    assert.ok(store.lines().includes("new value=3 3000"));
    const after = openPointQueue(path);
    assert.equal(after.size, 0);
    after.close();
  } finally {
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("createTsdbWriter() goes on in memory when the buffer file fails (disk full), with one ERROR", async () => {
  const store = startStore();
  const log = createMemoryLog();
  const dir = await Deno.makeTempDir({ prefix: "homewire-writer-" });
  const file = openPointQueue(`${dir}/buffer.sqlite3`);
  let broken = false;
  const fail = () => {
    if (broken) throw new Error("database or disk is full");
  };
  // The file's queue, failing from the moment the disk fills.
  const queue: PointQueue = {
    add: (lines) => (fail(), file.add(lines)),
    oldest: (limit) => (fail(), file.oldest(limit)),
    removeThrough: (last) => (fail(), file.removeThrough(last)),
    dropOldest: (count) => (fail(), file.dropOldest(count)),
    get size() {
      fail();
      return file.size;
    },
    close: () => file.close(),
  };
  const target = tsdbTarget({
    host: "127.0.0.1",
    port: store.port,
    api: "v1",
    database: "home",
  });
  const writer = createTsdbWriter({
    send: createLineSender(target),
    label: target.label,
    bufferLimit: 100,
    timeoutMs: 500,
    backoff: { baseMs: 10, maxMs: 40 },
    queue,
    fileLabel: `TSDB_BUFFER_PATH "${dir}/buffer.sqlite3"`,
    log,
  });
  try {
    writer.write(["a value=1 1"]);
    assert.equal(await writer.flush(2000), true);
    broken = true;
    writer.write(["b value=2 2", "c value=3 3"]);
    writer.write(["d value=4 4"]);
    assert.equal(await writer.flush(2000), true);
    assert.deepEqual(store.lines(), [
      "a value=1 1",
      "b value=2 2",
      "c value=3 3",
      "d value=4 4",
    ]);
    assert.equal(log.at("ERROR").length, 1);
    assert.match(
      log.at("ERROR")[0]!,
      /^Time-series buffer TSDB_BUFFER_PATH ".*buffer\.sqlite3" cannot be used: database or disk is full; new points wait in memory/,
    );
    assert.equal(writer.dropped, 0);
  } finally {
    await writer.close(1000);
    await store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("createTsdbWriter() goes on in memory when reading the buffer file fails while draining", async () => {
  const store = startStore();
  const log = createMemoryLog();
  const file = openPointQueue(":memory:");
  let reads = 0;
  const queue: PointQueue = {
    add: (lines) => file.add(lines),
    oldest(limit) {
      if (++reads === 1) throw new Error("disk I/O error");
      return file.oldest(limit);
    },
    removeThrough: (last) => file.removeThrough(last),
    dropOldest: (count) => file.dropOldest(count),
    get size() {
      return file.size;
    },
    close: () => file.close(),
  };
  const target = tsdbTarget({
    host: "127.0.0.1",
    port: store.port,
    api: "v1",
    database: "home",
  });
  const writer = createTsdbWriter({
    send: createLineSender(target),
    label: target.label,
    bufferLimit: 100,
    timeoutMs: 500,
    queue,
    log,
  });
  try {
    writer.write(["a value=1 1"]);
    await writer.flush(1000);
    // The point that was in the failed file waits there; new ones go through.
    writer.write(["b value=2 2"]);
    assert.equal(await writer.flush(2000), true);
    assert.deepEqual(store.lines(), ["b value=2 2"]);
    assert.match(log.at("ERROR")[0]!, /cannot be used: disk I\/O error/);
  } finally {
    await writer.close(1000);
    await store.close();
  }
});

Deno.test("createTsdbWriter() keeps the points on 401, 403, 404, 408 and other refusals, one ERROR per cause saying what to do", async () => {
  const store = startStore();
  const { writer, log } = writerFor(store.port);
  try {
    store.statuses.push(404, 404, 401, 403, 408, 405);
    writer.write(["a value=1 1", "b value=2 2"]);
    assert.equal(await writer.flush(5000), true);
    assert.deepEqual(store.lines(), ["a value=1 1", "b value=2 2"]);
    assert.equal(writer.dropped, 0);
    const label = `http://127.0.0.1:${store.port}/write?db=home&precision=ms`;
    const keeping = "keeping the points and retrying";
    assert.deepEqual(log.at("ERROR"), [
      `Time-series store ${label} refused the write: 404 failure 404; ${keeping}: create the database (CREATE DATABASE "home") or set TSDB_DATABASE to an existing one`,
      `Time-series store ${label} refused the write: 401 failure 401; ${keeping}: set TSDB_USERNAME and TSDB_PASSWORD to a user of the store allowed to write`,
      `Time-series store ${label} refused the write: 403 failure 403; ${keeping}: give the user write access (GRANT WRITE ON "home" TO "...") or set TSDB_USERNAME and TSDB_PASSWORD to one that has it`,
      `Time-series store ${label} refused the write: 405 failure 405; ${keeping}: check TSDB_HOST, TSDB_API and the store's own log`,
    ]);
    assert.deepEqual(log.at("WARNING"), [
      `Time-series store ${label} unavailable: 408 failure 408; keeping the points for retry`,
    ]);
    assert.deepEqual(log.at("INFO"), [
      "Time-series store reachable again: wrote 2 points",
    ]);
  } finally {
    await writer.close(1000);
    await store.close();
  }
});

Deno.test("createTsdbWriter() sends a batch refused with 413 in halves, and drops only a point too large alone", async () => {
  const store = startStore();
  const { writer, log } = writerFor(store.port);
  try {
    const lines = ["a v=1 1", "b v=2 2", "c v=3 3", "d v=4 4", "e v=5 5"];
    // 5 points: 413; 3: 413; then 2, 2 and 1 are taken (the bound holds).
    store.statuses.push(413, 413);
    writer.write(lines);
    assert.equal(await writer.flush(5000), true);
    assert.deepEqual(store.lines(), lines);
    assert.deepEqual(store.bodies.map((body) => body.split("\n").length), [
      2,
      2,
      1,
    ]);
    assert.deepEqual(log.at("ERROR"), []);
    assert.equal(writer.dropped, 0);

    store.statuses.push(413);
    writer.write(["huge v=1 1"]);
    assert.equal(await writer.flush(5000), true);
    assert.deepEqual(log.at("ERROR"), [
      "Time-series store refused 1 point, dropped: 413 failure 413",
    ]);
    assert.equal(writer.dropped, 1);
  } finally {
    await writer.close(1000);
    await store.close();
  }
});

Deno.test("createTsdbWriter() finds the point of a 400 that names no line by halving, and drops only it", async () => {
  const store = startStore();
  const { writer, log } = writerFor(store.port);
  try {
    // [a b c d]: 400; [a b]: 204; [c d]: 400; [c]: 400, dropped; [d]: 204.
    store.statuses.push(400, 204, 400, 400);
    writer.write(["a v=1 1", "b v=2 2", "c v=3 3", "d v=4 4"]);
    assert.equal(await writer.flush(5000), true);
    assert.deepEqual(store.lines(), ["a v=1 1", "b v=2 2", "d v=4 4"]);
    assert.deepEqual(log.at("ERROR"), [
      "Time-series store refused 1 point, dropped: 400 failure 400",
    ]);
    assert.equal(writer.dropped, 1);
  } finally {
    await writer.close(1000);
    await store.close();
  }
});

Deno.test("createTsdbWriter() reports a refusal again after the store judged the points in between", async () => {
  const store = startStore();
  const { writer, log } = writerFor(store.port);
  try {
    const unparsed = {
      status: 400,
      body: { error: "unable to parse 'bad': missing fields" },
    };
    store.statuses.push(401, unparsed, 401);
    writer.write(["bad"]);
    assert.equal(await writer.flush(5000), true);
    writer.write(["good v=1 1"]);
    assert.equal(await writer.flush(5000), true);
    assert.deepEqual(store.lines(), ["good v=1 1"]);
    assert.deepEqual(
      log.at("ERROR").map((line) => line.replace(/ \(.*|: set .*/, "")),
      [
        `Time-series store http://127.0.0.1:${store.port}/write?db=home&precision=ms refused the write: 401 failure 401; keeping the points and retrying`,
        "Time-series store refused 1 point, dropped: 400 unable to parse 'bad': missing fields",
        `Time-series store http://127.0.0.1:${store.port}/write?db=home&precision=ms refused the write: 401 failure 401; keeping the points and retrying`,
      ],
    );
  } finally {
    await writer.close(1000);
    await store.close();
  }
});
