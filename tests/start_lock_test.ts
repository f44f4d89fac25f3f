/**
 * `deno.start.lock`, the lockfile of `deno task start`, is `deno.lock` cut down to
 * the npm packages the program imports (`deno task lock` writes it), so a first
 * start fetches the roles' packages at the versions the tests ran with, and none
 * of the test and benchmark packages.
 */
import assert from "node:assert/strict";
import { expectedStartLock, startLock } from "../scripts/start_lock.ts";

const root = new URL("../", import.meta.url);

Deno.test("deno.start.lock is deno.lock cut down to the program's packages", async () => {
  const current = await Deno.readTextFile(new URL("deno.start.lock", root))
    .catch(() =>
      assert.fail("deno.start.lock is missing: run `deno task lock`")
    );
  assert.deepEqual(
    JSON.parse(current),
    JSON.parse(await expectedStartLock(root)),
    "deno.start.lock differs from deno.lock: run `deno task lock` and commit it",
  );
  const packages = Object.keys(JSON.parse(current).npm).join(" ");
  for (const testOnly of ["puppeteer-core@", "json-server@", "autocannon@"]) {
    assert.ok(!packages.includes(testOnly), `${testOnly} in deno.start.lock`);
  }
});

Deno.test("startLock() keeps the roots, what they depend on, and their specifiers", () => {
  const lock = {
    version: "5",
    specifiers: {
      "npm:a@1.0.0": "1.0.0",
      "npm:b@^2.0.0": "2.1.0",
      "npm:test-only@3.0.0": "3.0.0",
    },
    npm: {
      "a@1.0.0": { integrity: "a", dependencies: ["b"] },
      "b@2.1.0": { integrity: "b", optionalDependencies: ["c@1.0.0"] },
      "c@1.0.0": { integrity: "c" },
      "test-only@3.0.0": { integrity: "t", dependencies: ["b"] },
    },
    workspace: { dependencies: ["npm:a@1.0.0", "npm:test-only@3.0.0"] },
  };
  assert.deepEqual(startLock(lock, ["a@1.0.0"]), {
    version: "5",
    specifiers: { "npm:a@1.0.0": "1.0.0", "npm:b@^2.0.0": "2.1.0" },
    npm: {
      "a@1.0.0": { integrity: "a", dependencies: ["b"] },
      "b@2.1.0": { integrity: "b", optionalDependencies: ["c@1.0.0"] },
      "c@1.0.0": { integrity: "c" },
    },
    workspace: { dependencies: ["npm:a@1.0.0", "npm:test-only@3.0.0"] },
  });
  assert.throws(() => startLock(lock, ["gone@1.0.0"]), /run `deno install`/);
});
