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
const ROUNDS = 2;

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

async function measure(options: LoadOptions): Promise<number> {
  await load({ ...options, seconds: 2 }); // warm-up
  let best = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const result = await load({ ...options, seconds: SECONDS });
    if (result.errors > 0) {
      throw new Error(`${result.errors} failed requests to ${options.url}`);
    }
    best = Math.max(best, result.rps);
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
    const oursRps = await measure({
      url: `http://127.0.0.1:${oursPort}/data`,
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    const peerRps = await measure({ url: `http://127.0.0.1:${peerPort}/data` });
    report("data-api GET /data rps", Math.round(oursRps), Math.round(peerRps));
  } finally {
    await Promise.all([ours.stop(), peer.stop()]);
  }
}
