/**
 * Decompression bombs through `main.ts`: an upstream returning a few hundred bytes
 * of brotli (or a few MB of gzip) that decode to 1 or 8 GiB. The proxy holds at
 * most a part of the decoded body at once and stops at PROXY_MAX_RESPONSE_BYTES:
 * its resident size stays under MAX_RESIDENT_MB.
 */
import assert from "node:assert/strict";
import { freePort, startMain } from "./_test_helpers.ts";
import {
  bomb,
  type BombCoding,
  peakResidentMb,
  startBombUpstream,
} from "./_test_bombs.ts";

/** The bound on the proxy's peak resident size, in MB (it starts near 90). */
const MAX_RESIDENT_MB = 300;

const CASES: [BombCoding, number][] = [
  ["br", 1],
  ["gzip", 1],
  ["br", 8],
  ["gzip", 8],
];

async function startProxy(upstream: string, env: Record<string, string>) {
  const port = freePort();
  const proxy = startMain(["proxy"], {
    env: {
      PROXY_ROUTES: `bombs=${upstream}`,
      PROXY_HOST: "127.0.0.1",
      PROXY_PORT: String(port),
      ...env,
    },
  });
  await proxy.waitFor(/proxy listening on/);
  return { proxy, base: `http://127.0.0.1:${port}` };
}

Deno.test("proxy returns 502 to a decompression bomb, in bounded memory", async (t) => {
  const bombs: Record<
    string,
    { coding: BombCoding; bytes: Uint8Array<ArrayBuffer> }
  > = {};
  for (const [coding, gib] of CASES) {
    bombs[`${gib}g.${coding}`] = { coding, bytes: await bomb(coding, gib) };
  }
  const upstream = startBombUpstream(bombs);
  const { proxy, base } = await startProxy(upstream.url, {
    PROXY_MAX_RESPONSE_BYTES: "1000000",
  });
  try {
    for (const [coding, gib] of CASES) {
      const name = `${gib}g.${coding}`;
      await t.step(
        `${gib} GiB of ${coding} (${bombs[name]!.bytes.length} bytes)`,
        async () => {
          const response = await fetch(`${base}/bombs/${name}`);
          assert.equal(response.status, 502);
          assert.deepEqual(await response.json(), {
            message:
              `The upstream of route "bombs" sent a ${coding} body that decodes to over 1000000 bytes (PROXY_MAX_RESPONSE_BYTES)`,
          });
          const peak = await peakResidentMb(proxy.child.pid);
          assert.ok(peak < MAX_RESIDENT_MB, `peak resident size ${peak} MB`);
        },
      );
    }
    await t.step("the proxy still relays", async () => {
      const response = await fetch(`${base}/bombs/none`);
      assert.equal(response.status, 404);
      assert.equal(await response.text(), "no such bomb");
    });
  } finally {
    await proxy.stop();
    await upstream.stop();
  }
});

Deno.test("proxy cuts a bomb found past the first MiB short at its default bound, in bounded memory", async () => {
  const upstream = startBombUpstream({
    "1g.br": { coding: "br", bytes: await bomb("br", 1) },
  });
  const { proxy, base } = await startProxy(upstream.url, {});
  try {
    const response = await fetch(`${base}/bombs/1g.br`);
    assert.equal(response.status, 200);
    let received = 0;
    await assert.rejects(async () => {
      for await (const part of response.body!) received += part.length;
    });
    assert.equal(received, 256 * 1024 * 1024);
    await proxy.waitFor(
      /\[WARNING\] The upstream of route "bombs" sent a br body that decodes to over 268435456 bytes \(PROXY_MAX_RESPONSE_BYTES\): cut short/,
    );
    const peak = await peakResidentMb(proxy.child.pid);
    assert.ok(peak < MAX_RESIDENT_MB, `peak resident size ${peak} MB`);
  } finally {
    await proxy.stop();
    await upstream.stop();
  }
});
