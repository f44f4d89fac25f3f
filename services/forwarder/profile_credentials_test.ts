import assert from "node:assert/strict";
import { withFakeClock } from "../../tests/_test_clock.ts";
import {
  checkProfileCredentials,
  PROFILE_CREDENTIALS_TIMEOUT_MS,
} from "./profile_credentials.ts";

Deno.test("checkProfileCredentials()", async (t) => {
  await t.step("resolves once the profile gave credentials", async () => {
    await checkProfileCredentials({
      profile: "prod",
      credentials: () => Promise.resolve({ accessKeyId: "a" }),
    });
  });

  await t.step("names the profile that gives no credentials", async () => {
    await assert.rejects(
      checkProfileCredentials({
        profile: "nosuch",
        credentials: () => Promise.reject(new Error("Could not resolve")),
      }),
      {
        message:
          'No credentials for QUEUE_PROFILE "nosuch": Could not resolve: add the profile to the shared AWS config files (~/.aws/credentials, ~/.aws/config) or set both keys',
      },
    );
  });

  await t.step(
    "gives up on a credential process that does not respond",
    async () => {
      await withFakeClock(async (clock) => {
        let outcome: unknown;
        const checked = checkProfileCredentials({
          profile: "hang",
          credentials: () => new Promise(() => {}),
          timeoutMs: 100,
        }).catch((error) => outcome = error);
        await clock.tickAsync(99);
        assert.equal(outcome, undefined);
        await clock.tickAsync(1);
        await checked;
        assert.equal(
          String(outcome),
          'Error: No credentials for QUEUE_PROFILE "hang" within 0.1 s: its credential_process or SSO login did not respond; check that `aws configure export-credentials --profile hang` responds at once, or set both keys',
        );
      });
    },
  );

  await t.step("waits 30 s by default", async () => {
    assert.equal(PROFILE_CREDENTIALS_TIMEOUT_MS, 30_000);
    await withFakeClock(async (clock) => {
      let outcome: unknown;
      checkProfileCredentials({
        profile: "slow",
        credentials: () => new Promise(() => {}),
      }).catch((error) => outcome = error);
      await clock.tickAsync(PROFILE_CREDENTIALS_TIMEOUT_MS - 1);
      assert.equal(outcome, undefined);
      await clock.tickAsync(1);
      assert.match(String(outcome), /within 30 s/);
    });
  });
});
