/**
 * `deno task bench data-api`: authorized requests per second of the data API (started
 * through `main.ts`) against a bare `Deno.serve` responding to a fixed 20-record JSON.
 *
 * @module
 */
import {
  freePort,
  measureAlternating,
  report,
  roleV8Args,
  spawn,
  spawnRole,
  waitForHttp,
} from "./_runner.ts";
import { metricsOnOff } from "./_metrics_on_off.ts";

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
 * Runs the comparison and prints `data-api GET /data rps: ours X, peer Y, ratio X/Y`,
 * then the line of the data API with its metrics on against off.
 */
export async function run(): Promise<void> {
  const oursPort = freePort();
  const peerPort = freePort();
  const oursProcess = spawnRole(["data-api"], {
    env: {
      DATA_API_TOKEN: TOKEN,
      DATA_API_HOST: "127.0.0.1",
      DATA_API_PORT: String(oursPort),
      LOG_LEVEL: "WARNING",
    },
  });
  const peerProcess = spawn(Deno.execPath(), ["eval", ...roleV8Args(), PEER], {
    env: { PORT: String(peerPort) },
  });
  try {
    await waitForHttp(`http://127.0.0.1:${oursPort}/healthz`);
    await waitForHttp(`http://127.0.0.1:${peerPort}/`);
    const targets = [
      {
        url: `http://127.0.0.1:${oursPort}/data`,
        headers: { Authorization: `Bearer ${TOKEN}` },
      },
      { url: `http://127.0.0.1:${peerPort}/data` },
    ];
    const results = await measureAlternating(targets, {
      rounds: ROUNDS,
      seconds: SECONDS,
    });
    for (const [i, result] of results.entries()) {
      if (result.errors > 0) {
        throw new Error(
          `${result.errors} failed requests to ${targets[i]!.url}`,
        );
      }
    }
    const [ours, peer] = results.map((result) => Math.round(result.rps));
    report("data-api GET /data rps", ours!, peer!);
  } finally {
    await Promise.all([oursProcess.stop(), peerProcess.stop()]);
  }
  await metricsOnOff({
    name: "data-api GET /data rps, metrics on vs off",
    args: ["data-api"],
    portSetting: "DATA_API_PORT",
    env: () => ({ DATA_API_TOKEN: TOKEN, DATA_API_HOST: "127.0.0.1" }),
    request: (base) => ({
      url: `${base}/data`,
      headers: { Authorization: `Bearer ${TOKEN}` },
    }),
    rounds: ROUNDS,
    seconds: SECONDS,
  });
}
