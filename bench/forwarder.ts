/**
 * `deno task bench forwarder`: throughput and memory of the forwarder on 20,000
 * messages in fauxqs.
 *
 * 1. Loopback: ours against a bare receive + batch-delete loop with the same number of
 *    receives in flight (the queue's ceiling as the SDK's default client reaches it),
 *    and against the same loop on the forwarder's own SQS client (SDK on the pooled
 *    HTTP/1.1 transport), the stricter ceiling. Its peak RSS is the floor of any SDK
 *    client in Deno here, printed beside ours.
 * 2. Realistic latency (each queue call delayed 10 ms by a relay, the sink responding
 *    after 20 ms): ours against a naive receive-post-delete loop and against `npm:sqs-consumer`.
 *
 * Loopback runs are short (about 3 s), so each target runs {@linkcode LOOPBACK_ROUNDS}
 * times in turn and its best round counts.
 *
 * Ours runs with the V8 flags of `deno task start`, as do the two bare loops
 * (`BENCH_V8_FLAGS` replaces them); lines 1b and 2b run
 * it with the V8 flags docs/forwarder.md recommends for a small device ({@linkcode V8_FLAGS}),
 * and line 1b compares its peak RSS with the bare loop's on the same client and flags.
 * The peers are in `_forwarder_peers.ts`.
 *
 * @module
 */
import { startFauxqs } from "../tests/_test_fauxqs.ts";
import {
  type BenchProcess,
  freePort,
  report,
  reportLimit,
  roleV8Flags,
  spawnDeno,
  spawnRole,
} from "./_runner.ts";

const MESSAGES = 20_000;
const RECEIVERS = 4;
const CONCURRENCY = 80;
/** Rounds of the loopback scenario; each target's best round counts. */
const LOOPBACK_ROUNDS = 3;
/** Longest run of one peer; slower peers are measured on what they did by then. */
const CAP_MS = 25_000;
/**
 * The flags docs/forwarder.md gives for a small device: a 2 MB semi-space instead of V8's default
 * (up to 32 MB here) or the start task's 8 MB, and an old-space limit far above the forwarder's live heap (~20 MB),
 * which makes V8 size the old generation for a small heap. Each flag alone saves
 * little; together they hold RSS flat at ~110 MB (from ~175 MB on V8's defaults), for 5-20% fewer
 * messages per second on loopback.
 */
const V8_FLAGS = "--max-semi-space-size=2,--max-old-space-size=256";
const PEERS = new URL("./_forwarder_peers.ts", import.meta.url).pathname;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A sink counting the posts it gets, responding after `delayMs`. */
function startSink(delayMs: number) {
  let count = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      await request.arrayBuffer();
      count++;
      if (delayMs > 0) await pause(delayMs);
      return new Response("ok");
    },
  );
  return {
    url: `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}/hook`,
    count: () => count,
    stop: () => server.shutdown(),
  };
}

type Fauxqs = Awaited<ReturnType<typeof startFauxqs>>;

/**
 * Seeds a fresh queue, starts a consumer, and returns its rate in messages per second,
 * timed from the first message taken to the queue being empty (or to the cap).
 */
async function measure(
  fauxqs: Fauxqs,
  name: string,
  start: (queueUrl: string) => BenchProcess,
) {
  const queueUrl = await fauxqs.createQueue(name);
  const bodies = Array.from({ length: MESSAGES }, (_, i) => `{"n":${i}}`);
  await fauxqs.send(queueUrl, bodies);
  const process = start(queueUrl);
  const begin = Date.now();
  let first: number | undefined;
  let left = MESSAGES;
  while (Date.now() - begin < CAP_MS + 30_000) {
    const counts = await fauxqs.counts(queueUrl);
    const now = Date.now();
    if (first === undefined && counts.visible < MESSAGES) first = now;
    left = counts.visible + counts.inFlight;
    if (left === 0 || (first !== undefined && now - first >= CAP_MS)) break;
    await pause(50);
  }
  const elapsed = (Date.now() - (first ?? begin)) / 1000;
  await process.stop();
  return { rate: Math.round((MESSAGES - left) / elapsed), process };
}

/**
 * Runs every target once per round, in turn (so a slow spell of the machine hits all
 * of them alike), and keeps for each its best rate and its run with the highest peak
 * RSS (the memory lines report the worst run).
 */
async function bestOf<Name extends string>(
  fauxqs: Fauxqs,
  rounds: number,
  targets: Record<Name, (queueUrl: string) => BenchProcess>,
): Promise<Record<Name, { rate: number; process: BenchProcess }>> {
  const best = {} as Record<Name, { rate: number; process: BenchProcess }>;
  for (let round = 0; round < rounds; round++) {
    for (const name of Object.keys(targets) as Name[]) {
      const run = await measure(fauxqs, `${name}-${round}`, targets[name]);
      const kept = best[name];
      best[name] = {
        rate: Math.max(kept?.rate ?? 0, run.rate),
        process: kept && kept.process.peakRssMb() >= run.process.peakRssMb()
          ? kept.process
          : run.process,
      };
    }
  }
  return best;
}

function ours(
  fauxqs: Fauxqs,
  endpoint: string,
  sink: string,
  v8 = roleV8Flags(),
) {
  return (queueUrl: string) =>
    spawnRole(["forwarder"], {
      v8Flags: v8,
      env: {
        ...fauxqs.env(queueUrl),
        QUEUE_ENDPOINT_URL: endpoint,
        HTTP_ENDPOINT: sink,
        AUTH_BEARER_TOKEN: "t",
        FORWARDER_RECEIVERS: String(RECEIVERS),
        FORWARD_CONCURRENCY: String(CONCURRENCY),
        LOG_LEVEL: "WARNING",
      },
    });
}

function peer(mode: string, ...args: string[]) {
  return (queueUrl: string) =>
    spawnDeno(PEERS, [mode, ...args.map((a) => a.replace("QUEUE", queueUrl))]);
}

/** The bare receive + delete loop, on the forwarder's V8 flags. */
function bareLoop(fauxqs: Fauxqs) {
  return (queueUrl: string) =>
    spawnDeno(PEERS, [
      "bare",
      fauxqs.endpoint,
      queueUrl,
      String(RECEIVERS),
      String(MESSAGES),
    ], { v8Flags: roleV8Flags() });
}

/** The bare loop on the forwarder's own client, with the forwarder's V8 flags or others. */
function bareSameClient(fauxqs: Fauxqs, v8 = roleV8Flags()) {
  return (queueUrl: string) =>
    spawnDeno(PEERS, [
      "bare-same-client",
      fauxqs.endpoint,
      queueUrl,
      String(RECEIVERS),
      String(MESSAGES),
    ], { v8Flags: v8 });
}

/** Prints ours' peak RSS against a peer's, in whole MB. */
function comparePeakRss(name: string, ours: BenchProcess, peer: BenchProcess) {
  report(
    name,
    Math.round(ours.peakRssMb()),
    Math.round(peer.peakRssMb()),
    " MB",
  );
}

function printRss(label: string, process: BenchProcess) {
  const samples = process.rssSamples();
  reportLimit(`${label} forwarder peak RSS`, process.peakRssMb(), 80, " MB");
  const { anon, file } = process.peakRssParts();
  console.log(
    `${label} forwarder peak RSS split: ${
      anon.toFixed(1)
    } MB its own (anonymous), ${
      file.toFixed(1)
    } MB file pages (the Deno executable, shared)`,
  );
  const quarter = samples[Math.floor(samples.length / 4)] ?? 0;
  report(
    `${label} forwarder RSS at end vs at a quarter of the run (flat ~1)`,
    Math.round(samples.at(-1) ?? 0),
    Math.round(quarter),
    " MB",
  );
}

/** Runs both scenarios and prints their comparison lines. */
export async function run(): Promise<void> {
  console.log(
    `forwarder settings: FORWARDER_RECEIVERS=${RECEIVERS} FORWARD_CONCURRENCY=${CONCURRENCY} LOG_LEVEL=WARNING (no line per body); ${MESSAGES} messages per run; slow peers measured over ${
      CAP_MS / 1000
    } s`,
  );
  const fauxqs = await startFauxqs();
  const sink = startSink(0);
  const relayPort = freePort();
  const relay = spawnDeno(PEERS, [
    "relay",
    String(relayPort),
    fauxqs.endpoint,
    "10",
  ]);
  const slowSink = startSink(20);
  const relayUrl = `http://127.0.0.1:${relayPort}`;
  try {
    const loopback = await bestOf(fauxqs, LOOPBACK_ROUNDS, {
      bare: bareLoop(fauxqs),
      bareSame: bareSameClient(fauxqs),
      ours: ours(fauxqs, fauxqs.endpoint, sink.url),
      flagged: ours(fauxqs, fauxqs.endpoint, sink.url, V8_FLAGS),
      bareSameFlagged: bareSameClient(fauxqs, V8_FLAGS),
    });
    const { bare, bareSame, ours: fast, flagged, bareSameFlagged } = loopback;
    report(
      "1. loopback msg/s vs bare receive+delete loop, SDK default client (target >= 0.8)",
      fast.rate,
      bare.rate,
    );
    report(
      "1. loopback msg/s vs bare loop on the forwarder's own SQS client (stricter)",
      fast.rate,
      bareSame.rate,
    );
    printRss("1.", fast.process);
    comparePeakRss(
      "1. forwarder peak RSS vs the bare loop's (default client)",
      fast.process,
      bare.process,
    );
    comparePeakRss(
      "1. forwarder peak RSS vs the bare loop's on its own client (the floor)",
      fast.process,
      bareSame.process,
    );
    report(
      `1b. loopback with --v8-flags=${V8_FLAGS}, msg/s vs bare loop, default client`,
      flagged.rate,
      bare.rate,
    );
    printRss("1b.", flagged.process);
    comparePeakRss(
      "1b. forwarder peak RSS vs the bare loop's on its own client, same flags (the floor)",
      flagged.process,
      bareSameFlagged.process,
    );

    const slow = await measure(
      fauxqs,
      "ours-latency",
      ours(fauxqs, relayUrl, slowSink.url),
    );
    const naive = await measure(
      fauxqs,
      "naive",
      peer("naive", relayUrl, "QUEUE", slowSink.url),
    );
    const consumer = await measure(
      fauxqs,
      "consumer",
      peer("consumer", relayUrl, "QUEUE", slowSink.url),
    );
    report(
      "2. latency msg/s vs a naive loop (target >= 20)",
      slow.rate,
      naive.rate,
    );
    report(
      "2. latency msg/s vs sqs-consumer batchSize 10 (target >= 2)",
      slow.rate,
      consumer.rate,
    );
    printRss("2.", slow.process);
    const slowFlagged = await measure(
      fauxqs,
      "ours-latency-flagged",
      ours(fauxqs, relayUrl, slowSink.url, V8_FLAGS),
    );
    report(
      `2b. latency with --v8-flags=${V8_FLAGS}, msg/s vs sqs-consumer (target >= 2)`,
      slowFlagged.rate,
      consumer.rate,
    );
    printRss("2b.", slowFlagged.process);
  } finally {
    await relay.stop();
    await sink.stop();
    await slowSink.stop();
    await fauxqs.stop();
  }
}
