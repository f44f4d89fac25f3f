/**
 * `deno task bench data-api`: authorized requests per second of the data API (started
 * through `main.ts`) against a bare `Deno.serve` answering a fixed 20-record JSON.
 *
 * @module
 */
import {
  freePort,
  load,
  type LoadOptions,
  report,
  spawn,
  spawnDeno,
  waitForHttp,
} from "./_runner.ts";

const MAIN = new URL("../main.ts", import.meta.url).pathname;
const TOKEN = "bench-token-5b1f0c2e";
const SECONDS = 10;
const ROUNDS = 3;

const PEER = `
const records = Array.from({ length: 20 }, (_, i) => ({
  phone: "+1 415-555-" + (1000 + i),
  name: "Person Number" + i,
  email: "person" + i + "@example.com",
}));
const body = JSON.stringify(records);
Deno.serve({ hostname: "127.0.0.1", port: Number(Deno.env.get("PORT")), onListen() {} },
  () => new Response(body, { headers: { "content-type": "application/json" } }));
`;

/**
 * Measures both targets in alternating rounds (ours, peer, ours, peer, ...) after a
 * warm-up, and keeps each one's best round, so a drift of the machine's speed during
 * the run does not favour either side.
 */
async function measureAlternating(
  targets: [LoadOptions, LoadOptions],
): Promise<[number, number]> {
  for (const target of targets) await load({ ...target, seconds: 2 });
  const best: [number, number] = [0, 0];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, target] of targets.entries()) {
      const result = await load({ ...target, seconds: SECONDS });
      if (result.errors > 0) {
        throw new Error(`${result.errors} failed requests to ${target.url}`);
      }
      best[i] = Math.max(best[i]!, result.rps);
    }
  }
  return best;
}

/** Runs the comparison and prints `data-api GET /data rps: ours X, peer Y, ratio X/Y`. */
export async function run(): Promise<void> {
  const oursPort = freePort();
  const peerPort = freePort();
  const ours = spawnDeno(MAIN, ["data-api"], {
    env: {
      DATA_API_TOKEN: TOKEN,
      DATA_API_HOST: "127.0.0.1",
      DATA_API_PORT: String(oursPort),
      LOG_LEVEL: "WARNING",
    },
  });
  const peer = spawn(Deno.execPath(), ["eval", PEER], {
    env: { PORT: String(peerPort) },
  });
  try {
    await waitForHttp(`http://127.0.0.1:${oursPort}/healthz`);
    await waitForHttp(`http://127.0.0.1:${peerPort}/`);
    const [oursRps, peerRps] = await measureAlternating([
      {
        url: `http://127.0.0.1:${oursPort}/data`,
        headers: { Authorization: `Bearer ${TOKEN}` },
      },
      { url: `http://127.0.0.1:${peerPort}/data` },
    ]);
    report("data-api GET /data rps", Math.round(oursRps), Math.round(peerRps));
  } finally {
    await Promise.all([ours.stop(), peer.stop()]);
  }
}
