/**
 * The `notifier` role through `main.ts` against a target responding with a body without
 * end: 1 GiB bombs (br and gzip) and an endless plain body. The body is read no
 * further than the bound and the status decides: a refusal fails the note with an
 * error naming the bound, an acceptance delivers it; the resident size stays under
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

/**
 * The notifier through `main.ts`, sending to `json://HOST/hook`, once it listens;
 * `note()` asks it for one note.
 */
async function startNotifier(host: string) {
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
  } catch (error) {
    await main.stop("SIGKILL");
    throw error;
  }
  return {
    main,
    note: () => fetch(`http://127.0.0.1:${port}/note/Door/Opened`),
  };
}

for (const [what, body] of HOSTILE_BODIES) {
  Deno.test(`main.ts notifier fails a note whose target refuses it with ${what}, in bounded memory`, async () => {
    const target = startBombUpstream({
      hook: { ...await body(), status: 400 },
    });
    const host = new URL(target.url).host;
    const { main, note } = await startNotifier(host);
    try {
      const response = await note();
      assert.equal(response.status, 502);
      const { results } = await response.json();
      assert.deepEqual(results, [{
        target: `json://${host}/hook`,
        ok: false,
        status: 400,
        error:
          "JSON endpoint returned HTTP 400: its reply unread: The response body is over 262144 bytes",
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

Deno.test("main.ts notifier delivers a note its target accepts with a bomb for a body, once", async () => {
  const target = startBombUpstream({ hook: await HOSTILE_BODIES[0]![1]() });
  const { main, note } = await startNotifier(new URL(target.url).host);
  try {
    const response = await note();
    const { results } = await response.json();
    assert.equal(response.status, 200);
    assert.equal(results.length, 1);
    assert.equal(results[0].ok, true);
    assert.equal(results[0].status, 200);
    assert.deepEqual(target.requests, ["POST /hook"]);
    const peak = await peakResidentMb(main.child.pid);
    assert.ok(peak < MAX_RESIDENT_MB, `peak resident size ${peak} MB`);
  } finally {
    assert.equal(await main.stop(), 0);
    await target.stop();
  }
});
