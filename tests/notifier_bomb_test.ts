/**
 * The `notifier` role through `main.ts` against a target responding with a body without
 * end: 1 GiB bombs (br and gzip) and an endless plain body. The note fails with an
 * error naming the bound (not retried), and the resident size stays under
 * MAX_RESIDENT_MB.
 */
import assert from "node:assert/strict";
import { freePort, startMain } from "./_test_helpers.ts";
import {
  HOSTILE_BODIES,
  peakResidentMb,
  startBombUpstream,
} from "./_test_bombs.ts";

/** The bound on the notifier's peak resident size, in MB (it starts near 90). */
const MAX_RESIDENT_MB = 250;

for (const [what, body] of HOSTILE_BODIES) {
  Deno.test(`main.ts notifier fails a note whose target responds with ${what}, in bounded memory`, async () => {
    const target = startBombUpstream({ hook: await body() });
    const host = new URL(target.url).host;
    const port = freePort();
    const main = startMain(["notifier"], {
      env: {
        NOTIFIER_HOST: "127.0.0.1",
        NOTIFIER_PORT: String(port),
        NOTIFIER_URLS: `json://${host}/hook`,
      },
    });
    try {
      await main.waitFor(/notifier listening on http:\/\/127\.0\.0\.1:\d+/);
      const response = await fetch(`http://127.0.0.1:${port}/note/Door/Opened`);
      assert.equal(response.status, 502);
      const { results } = await response.json();
      assert.deepEqual(results, [{
        target: `json://${host}/hook`,
        ok: false,
        status: null,
        error: "JSON endpoint returned a body over 262144 bytes",
      }]);
      assert.deepEqual(target.requests, ["POST /hook"]);
      const peak = await peakResidentMb(main.child.pid);
      assert.ok(peak < MAX_RESIDENT_MB, `peak resident size ${peak} MB`);
    } finally {
      assert.equal(await main.stop(), 0);
      await target.stop();
    }
  });
}
