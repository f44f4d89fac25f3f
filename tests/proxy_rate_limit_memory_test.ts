/**
 * The rate limits' memory stays bounded with a million distinct clients, each
 * request from a "trusted proxy" (127.0.0.1) with its own `X-Forwarded-For` address:
 *
 * - 1,000,000 clients through the rate-limit guard in this process (the part of the
 *   app that holds a window per client: `createClientKey` reading X-Forwarded-For,
 *   then the bounded table), the resident size of this process sampled throughout
 *   (about 65 s at load average 10 on 2 shared cores; the whole app with a Request
 *   and a Response per client took 3 to 4 times as long there);
 * - 100,000 clients through `main.ts` (pipelined over 16 connections), with the
 *   table bounded to 10,000 windows, the proxy's resident size sampled throughout.
 *   A million through `main.ts` takes minutes on a shared machine (about 5k requests/s
 *   there): `PROXY_MEMORY_CLIENTS=1000000` runs that too.
 */
import assert from "node:assert/strict";
import { startEchoUpstream } from "../services/proxy/_test_helpers.ts";
import { freePort, startMain } from "./_test_helpers.ts";

const CLIENTS = Number(Deno.env.get("PROXY_MEMORY_CLIENTS") ?? 100_000);
/** Clients driven through the app in this process. */
const IN_PROCESS_CLIENTS = Number(
  Deno.env.get("PROXY_MEMORY_IN_PROCESS") ?? 1_000_000,
);
/**
 * The stated bounds, in MiB: on what the guard keeps of the run (the heap in use
 * after a full collection: the default bound's 100,000 windows, measured 10-20;
 * without the bound a million windows keep several times 64), and on the growth of
 * the resident size at its peak, garbage not yet collected included (measured
 * 70-135).
 */
const MAX_KEPT_MIB = 64;
const MAX_GROWTH_MIB = 256;
const CONNECTIONS = 16;
const BATCH = 250;
/** The stated bound on the proxy's resident size, in MiB. */
const MAX_RSS_MIB = 200;

Deno.test(`proxy rate limits: ${IN_PROCESS_CLIENTS} distinct clients in one process, table and resident size bounded`, async () => {
  // A process of its own, so that what other suites left in this one does not count.
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--v8-flags=--expose-gc",
      new URL("./_test_million_clients.ts", import.meta.url).pathname,
      String(IN_PROCESS_CLIENTS),
    ],
    stderr: "inherit",
  }).output();
  assert.equal(output.code, 0, "the million-client run failed (see above)");
  const { before, peak, heapBefore, heapAfter, seconds, firstRemaining } = JSON
    .parse(
      new TextDecoder().decode(output.stdout),
    );
  console.log(
    `${IN_PROCESS_CLIENTS} clients in one process in ${
      seconds.toFixed(1)
    } s; resident size ${before.toFixed(0)} MiB before, peak ${
      peak.toFixed(0)
    } MiB; heap kept ${(heapAfter - heapBefore).toFixed(0)} MiB`,
  );
  // The first clients' windows were dropped: they start again.
  assert.equal(firstRemaining, 99);
  assert.ok(
    heapAfter - heapBefore < MAX_KEPT_MIB,
    `the guard kept ${heapAfter - heapBefore} MiB of heap`,
  );
  assert.ok(
    peak - before < MAX_GROWTH_MIB,
    `resident size grew ${peak - before} MiB`,
  );
});

/** The resident size of process `pid`, in MiB. */
function rssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

/** Sends requests `from` to `to` (exclusive) pipelined on one connection. */
async function drive(port: number, from: number, to: number): Promise<number> {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(256 * 1024);
  let statuses429 = 0;
  try {
    for (let start = from; start < to; start += BATCH) {
      const end = Math.min(to, start + BATCH);
      let batch = "";
      for (let i = start; i < end; i++) {
        batch +=
          `GET /up/x HTTP/1.1\r\nhost: 127.0.0.1\r\nx-forwarded-for: 10.${
            (i >> 16) & 255
          }.${(i >> 8) & 255}.${i & 255}\r\n\r\n`;
      }
      await connection.write(encoder.encode(batch));
      let seen = 0;
      let carry = "";
      while (seen < end - start) {
        const read = await connection.read(buffer);
        if (read === null) throw new Error("The proxy closed the connection");
        const text = carry + decoder.decode(buffer.subarray(0, read));
        let at = 0;
        while ((at = text.indexOf("HTTP/1.1 ", at)) >= 0) {
          seen++;
          if (text.startsWith("429", at + 9)) statuses429++;
          at += 9;
        }
        carry = text.slice(-12);
      }
    }
  } finally {
    connection.close();
  }
  return statuses429;
}

Deno.test(`proxy rate limits: ${CLIENTS} distinct clients through main.ts, resident size under ${MAX_RSS_MIB} MiB`, async () => {
  const echo = startEchoUpstream();
  const port = freePort();
  const proxy = startMain(["proxy"], {
    env: {
      PROXY_ROUTES: `up=${echo.url}`,
      PROXY_HOST: "127.0.0.1",
      PROXY_PORT: String(port),
      PROXY_TRUSTED_PROXIES: "127.0.0.1",
      PROXY_RATE_LIMIT: "100/1h",
      PROXY_RATE_LIMIT_MAX_CLIENTS: "10000",
      // One upstream request, then 429 for all: the test measures the windows, not
      // the upstream.
      PROXY_UPSTREAM_RATE_LIMIT_UP: "1/1h",
    },
  });
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMiB(proxy.child.pid));
  }, 200);
  try {
    await proxy.waitFor(/proxy listening on/);
    const started = performance.now();
    const share = Math.ceil(CLIENTS / CONNECTIONS);
    const refused = await Promise.all(
      Array.from(
        { length: CONNECTIONS },
        (_, i) => drive(port, i * share, Math.min(CLIENTS, (i + 1) * share)),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    peak = Math.max(peak, rssMiB(proxy.child.pid));
    console.log(
      `${CLIENTS} clients in ${seconds.toFixed(1)} s (${
        Math.round(CLIENTS / seconds)
      } requests/s); peak resident size ${peak.toFixed(0)} MiB`,
    );
    assert.equal(refused.reduce((a, b) => a + b, 0), CLIENTS - 1);
    assert.ok(peak < MAX_RSS_MIB, `peak resident size ${peak} MiB`);
    // The ceiling's refusals make one line, not one per request.
    const warnings = [...proxy.stdout, ...proxy.stderr].filter((line) =>
      line.includes("[WARNING]")
    );
    assert.equal(warnings.length, 1, warnings.join("\n"));
  } finally {
    clearInterval(sampler);
    await proxy.stop();
    await echo.stop();
  }
});
