/**
 * The `table` role through `main.ts` against a data API returning decompression
 * bombs (1 and 8 GiB of zeros in br and gzip): a 502 naming the bound, and the
 * resident size stays under MAX_RESIDENT_MB.
 */
import assert from "node:assert/strict";
import { listeningUrl, startMain } from "./_test_helpers.ts";
import {
  bomb,
  type BombCoding,
  peakResidentMb,
  startBombUpstream,
} from "./_test_bombs.ts";

/** The bound on the table's peak resident size, in MB (it starts near 90). */
const MAX_RESIDENT_MB = 300;

const CASES: [BombCoding, number][] = [
  ["br", 1],
  ["gzip", 1],
  ["br", 8],
  ["gzip", 8],
];

for (const [coding, gib] of CASES) {
  Deno.test(`main.ts table returns 502 to a ${gib} GiB ${coding} bomb from its data API, in bounded memory`, async () => {
    const name = `${gib}g.${coding}`;
    const upstream = startBombUpstream({
      [name]: { coding, bytes: await bomb(coding, gib) },
    });
    const table = startMain(["table", "0", "127.0.0.1", "false"], {
      env: { API_URL: `${upstream.url}/${name}` },
    });
    try {
      const base = await listeningUrl(table, "table");
      const response = await fetch(`${base}/api/table`);
      assert.equal(response.status, 502);
      const { message } = await response.json();
      assert.equal(
        message,
        `The data API at "${upstream.url}/${name}" returned a body over 67108864 bytes (TABLE_SOURCE_MAX_BYTES)`,
      );
      const peak = await peakResidentMb(table.child.pid);
      assert.ok(peak < MAX_RESIDENT_MB, `peak resident size ${peak} MB`);
    } finally {
      assert.equal(await table.stop(), 0);
      await upstream.stop();
    }
  });
}
