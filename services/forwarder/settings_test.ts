import assert from "node:assert/strict";
import { helpText } from "../../lib/help.ts";
import { forwarderRole } from "./mod.ts";
import { forwarderSettings } from "./settings.ts";

/** Every bounded forwarder setting, with the range it accepts. */
const RANGES: Record<string, [number, number | undefined]> = {
  QUEUE_MAX_NUMBER_OF_MESSAGES: [1, 10],
  QUEUE_WAIT_TIME_SECONDS: [0, 20],
  QUEUE_VISIBILITY_TIMEOUT: [1, 43_200],
  HTTP_TIMEOUT_MS: [1, undefined],
  FORWARD_CONCURRENCY: [1, 1000],
  FORWARDER_RECEIVERS: [1, 100],
};

Deno.test("forwarderSettings", async (t) => {
  await t.step("--help shows the range of every bounded setting", () => {
    const lines = helpText([forwarderRole], {}).split("\n");
    for (const [name, [min, max]] of Object.entries(RANGES)) {
      const line = lines.find((l) => l.trimStart().startsWith(`${name} `));
      const range = max === undefined
        ? `(at least ${min}`
        : `(${min} to ${max}`;
      assert.ok(line?.includes(range), `${name} shows ${range}: ${line}`);
    }
  });

  await t.step("each setting accepts exactly the range it shows", () => {
    for (const [name, [min, max]] of Object.entries(RANGES)) {
      const setting = forwarderSettings[name as keyof typeof forwarderSettings];
      assert.doesNotThrow(() => setting.read(String(min)), name);
      assert.throws(() => setting.read(String(min - 1)), name);
      if (max === undefined) continue;
      assert.doesNotThrow(() => setting.read(String(max)), name);
      assert.throws(() => setting.read(String(max + 1)), name);
    }
  });
});
